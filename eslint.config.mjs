import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      "lib/db/generated/",
      "test-results/",
      "playwright-report/",
      "next-env.d.ts",
      ".dependency-cruiser.cjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.mjs", "**/*.js", "scripts/**"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
  // Server code logs through lib/util/log.ts (redacting, structured); its sink is the one place that writes to console.
  {
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "lib/util/log.ts"],
    rules: { "no-console": "error" },
  },
  // One data path: SQL is Kysely's (AGENTS.md, "Data layer (Kysely)"). Prisma keeps its model calls, nothing else.
  {
    files: ["**/*.{ts,tsx,mts,cts,js,mjs,cjs}"],
    // The pre-Kysely lease-loop statements, kept verbatim as the benchmarks' baseline (docs/benchmarks.md, "Typed SQL").
    ignores: ["bench/old-pg.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "MemberExpression[property.name=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)$/]",
          message:
            'Raw SQL and transactions go through Kysely: db(), transaction() / transactionWithEvents() (AGENTS.md, "Data layer (Kysely)").',
        },
        {
          selector:
            "TSIndexedAccessType > TSLiteralType > Literal[value=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)$/]",
          message: 'Prisma\'s raw SQL and transactions are not used (AGENTS.md, "Data layer (Kysely)").',
        },
        {
          selector: "MemberExpression[object.name='Prisma'][property.name=/^(sql|raw|join|empty|Sql)$/]",
          message:
            'SQL fragments are Kysely\'s `sql` templates (import { sql } from "kysely"; AGENTS.md, "Data layer (Kysely)").',
        },
      ],
    },
  },
  // A function a reader can hold in their head.
  {
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}"],
    rules: { "max-lines-per-function": ["error", { max: 120, skipBlankLines: true, skipComments: true }] },
  },
);
