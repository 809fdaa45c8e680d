/**
 * Import rules `npm test` enforces (docs/architecture.md#layers). A rule here is
 * a fact about the code today; tighten it as the folder layering is finished.
 */
const SERVER_ONLY = "^lib/(db|tasks/(?!public)|runs|notify|workers|drivers|agent|limits|metrics|auth/(?!client)|events|delivery/(?!parse|due-at)|chat/(?!public)|config|security)";

module.exports = {
  forbidden: [
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
      comment: "lib/util, lib/config, lib/errors and lib/text are imported by everything and import no domain folder.",
      from: { path: "^lib/(util|config|errors|text)/", pathNot: "\\.test\\.tsx?$" },
      to: { path: "^(lib/(?!util/|config/|errors/|text/)|components/|app/)" },
    },
    {
      name: "browser-code-imports-no-server-code",
      severity: "error",
      comment: "Components and lib/client run in the browser: only wire shapes, translations and browser helpers.",
      from: { path: "^(components|lib/client|lib/i18n/client)" },
      to: { path: SERVER_ONLY, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "server-code-imports-no-browser-code",
      severity: "error",
      comment: "Server modules never import React components or the browser client.",
      from: { path: "^(lib/(?!client|i18n/client)|worker|scripts)" },
      to: { path: "^(components|lib/client|lib/i18n/client)" },
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
