/**
 * Import rules `npm test` enforces (docs/architecture.md#layers).
 */
const SERVER_ONLY =
  "^lib/(auth/(?!client)|(db|tasks|runs|chat|delivery|notify|fleet|runtime|commands|drivers|agent|limits|metrics|events|config|security|http|settings|email|keys|agent-protocol|share|research)/)";

/**
 * Server folders from the bottom up (docs/architecture.md#layers). A folder may
 * import the leaves and the folders before it, never one after it, so the
 * folder graph has no cycle. Tests are exempt: they drive a layer from above.
 */
const LEAVES = ["util", "text", "errors", "config", "i18n", "contract", "security"];
const ORDER = [
  "db",
  "limits",
  "events",
  "auth",
  "keys",
  "settings",
  "fleet",
  "research",
  "drivers", // storage and process facts (research: web search and page reading)
  "runs",
  "chat",
  "tasks",
  "email",
  "share", // rows and their transitions (email: the outbox on the notice row; share: links to publications)
  "delivery",
  "notify",
  "retention", // policies: what is due, what to tell, what is kept
  "agent", // capabilities: the model and its tools
  "agent-protocol", // the Agent Protocol surface: threads and runs over tasks
  "http",
  "metrics",
  "commands",
  "runtime", // orchestration: route wrapper, executors and loops, cross-domain commands
];
const layerRules = ORDER.slice(0, -1).map((folder, i) => ({
  name: `layer-${folder}`,
  severity: "error",
  comment: `lib/${folder} sits below ${ORDER.slice(i + 1).join(", ")}: move the shared part down or the caller up.`,
  from: { path: `^lib/${folder}/`, pathNot: "\\.test\\.tsx?$" },
  to: { path: `^lib/(${ORDER.slice(i + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "lib-imports-no-entry-point",
      severity: "error",
      comment: "app/, worker/ and scripts/ sit on top; library code never imports them.",
      from: { path: "^lib/", pathNot: "\\.test\\.tsx?$" },
      to: { path: "^(app|worker|scripts)/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "A file may not import itself through others; split the shared part into a lower module.",
      from: { path: "^(lib|app|components|worker|scripts)/" },
      to: { circular: true },
    },
    {
      name: "leaves-stay-leaves",
      severity: "error",
      comment:
        "The leaves (lib/util, text, errors, config, i18n, contract, security) are imported by everything and import only each other.",
      from: { path: `^lib/(${LEAVES.join("|")})/`, pathNot: "\\.test\\.tsx?$" },
      to: { path: `^(lib/(?!(${LEAVES.join("|")})/)|components/|app/)` },
    },
    {
      name: "browser-code-imports-no-server-code",
      severity: "error",
      comment: "Components and lib/client run in the browser: only wire shapes, translations and browser helpers.",
      from: { path: "^(components|lib/client)/" },
      to: { path: SERVER_ONLY, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "server-code-imports-no-browser-code",
      severity: "error",
      comment: "Server modules never import React components or the browser client.",
      from: { path: "^(lib/(?!client/)|worker|scripts)/" },
      to: { path: "^(components|lib/client)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.next|lib/db/generated)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
