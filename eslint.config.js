import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

/**
 * The folder boundaries of the dependency rule (docs/architecture.md): each zone forbids `target` files to
 * import from `from`. errors, schema and tools are the base; runtime sits on them; plan, delegate, traces and
 * agents on runtime (delegate and agents use plan's executor seam); only src/index.ts, cli/ (and tests) compose
 * everything, with distributed/ and ui/ at the same level.
 */
const src = (...folders) => folders.map((f) => `./src/${f}`);
const top = [
  "plan",
  "delegate",
  "traces",
  "agents",
  "eval",
  "events",
  "cli",
  "testing",
  "distributed",
  "ui",
  "index.ts",
];
const zones = [
  { target: src("errors"), from: src("schema", "tools", "runtime", ...top), message: "errors/ is the base." },
  {
    target: src("schema", "tools"),
    from: src("runtime", ...top),
    message: "schema/ and tools/ sit below runtime/.",
  },
  {
    target: src("runtime"),
    from: src(...top),
    message: "runtime/ is shared by plan, delegate and agents; it imports none of them.",
  },
  {
    target: src("plan"),
    from: src("delegate", "traces", "agents", "eval", "cli", "testing", "distributed", "ui", "index.ts"),
    message: "The engine knows no node type: wire executors in the composition root (src/index.ts).",
  },
  {
    target: src("delegate"),
    from: src("agents", "eval", "cli", "distributed", "ui", "index.ts"),
    message: "delegate/ and agents/ meet only in src/index.ts.",
  },
  {
    target: src("agents"),
    from: src("delegate", "traces", "eval", "cli", "distributed", "ui", "index.ts"),
    message: "agents/ and delegate/ meet only in src/index.ts.",
  },
  {
    target: src("events"),
    from: src("eval", "cli", "testing", "index.ts"),
    message:
      "events/ lists and bridges the channels of plan, delegate and agents; the root entry re-exports it.",
  },
  {
    target: src("traces"),
    from: src("plan", "delegate", "agents", "eval", "cli", "distributed", "ui", "index.ts"),
    message: "traces/ sit below delegate/: the proposal shape and the prompt they read live in tools/.",
  },
  { target: src("eval"), from: src("plan", "agents", "cli", "index.ts") },
  { target: src("testing"), from: src("plan", "delegate", "traces", "agents", "eval", "cli", "index.ts") },
];

/** Files that may import only types from plan/ (less the named engine entries). */
function planTypesOnly(files, allowed) {
  return {
    files,
    ignores: ["src/**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/plan/*", ...allowed.map((f) => `!**/plan/${f}`)],
              allowTypeImports: true,
              message: "Only types from plan/ (the executor seam); shared run-time code lives in runtime/.",
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", ".deputy/**", "**/*.cjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": ["error", { basePath: import.meta.dirname, zones }],
      // Users catch deputy's errors by class and code (deputy/errors); a bare Error has neither.
      "no-restricted-syntax": [
        "error",
        {
          selector: "ThrowStatement > :matches(NewExpression, CallExpression)[callee.name='Error']",
          message: "Throw one of deputy's error classes (src/errors/), with a code users can catch.",
        },
      ],
    },
  },
  // delegate/ and agents/ use plan/ for the executor seam's types only: what they share with the engine at run
  // time (dispatchTool, templates, retry…) lives in runtime/. agents/ runs plans through the engine's entry
  // (startRun, newRunId, validatePlan) for plan delegation: the one value import it makes.
  planTypesOnly(["src/delegate/**/*.ts"], []),
  planTypesOnly(["src/agents/**/*.ts"], ["run-plan.js", "validate-plan.js"]),
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
