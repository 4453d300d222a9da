import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";
import { noImportCycle } from "./eslint-rules/no-import-cycle.js";

/**
 * The folder boundaries of the dependency rule: each zone forbids `target` files to import from `from`. The
 * layers, low to high (docs/architecture.md has them as a table): errors; schema, tools, testing; runtime; store,
 * confidence, traces; plan (the engine checkpoints into a store; a store knows no plan); delegate and agents (node
 * types on plan's executor seam, never each other); distill (the learned delegate, on delegate); eval; and the
 * composition level: compose/ (the one composition root: host, run and resume set-up, delegate spec registry), then
 * what uses it (cli/, ui/, mcp/'s plan server, distributed/'s worker) and the root entry src/index.ts, which only
 * re-exports and which nothing under src/ imports (tests may compose everything; the root's own tests load it).
 */
const src = (...folders) => folders.map((f) => `./src/${f}`);
const composers = ["compose", "cli", "distributed", "ui", "mcp", "index.ts"];
/** What builds on compose/: the CLI, the console, the plan server of mcp/, the worker of distributed/, the root. */
const aboveCompose = [
  ...src("cli", "ui", "index.ts"),
  ...src("mcp/index.ts", "mcp/serve-plans.ts", "mcp/serve-http.ts", "mcp/serve-stdio.ts"),
  ...src("distributed/index.ts", "distributed/start-worker.ts", "distributed/unit-task.ts"),
];
const top = [
  "store",
  "plan",
  "confidence",
  "delegate",
  "distill",
  "traces",
  "agents",
  "eval",
  "authoring",
  "events",
  "testing",
  ...composers,
];
/** Every folder under src/: none imports the root entry (src/index.ts), which only re-exports. */
const folders = ["errors", "schema", "tools", "runtime", ...top.filter((f) => f !== "index.ts")];
const above = (folder) => top.slice(top.indexOf(folder) + 1);
const zones = [
  { target: src("errors"), from: src("schema", "tools", "runtime", ...top), message: "errors/ is the base." },
  {
    target: src("schema", "tools"),
    from: src("runtime", ...top),
    message: "schema/ and tools/ sit below runtime/.",
  },
  {
    target: src("records"),
    from: src("runtime", ...top),
    message: "records/ imports only errors/, schema/, tools/.",
  },
  {
    target: src("runtime"),
    from: src(...top),
    message: "runtime/ is shared by plan, delegate and agents; it imports none of them.",
  },
  {
    target: src("store"),
    from: src(...above("store")),
    message: "store/ holds run records below the engine: plan/ imports store/, never the reverse.",
  },
  {
    target: src("plan"),
    from: src(
      "confidence",
      "delegate",
      "distill",
      "traces",
      "agents",
      "eval",
      "events",
      "testing",
      ...composers,
    ),
    message: "The engine knows no node type: wire executors in the composition root (src/compose/).",
  },
  {
    target: src("confidence"),
    from: src(
      "store",
      "plan",
      "delegate",
      "distill",
      "traces",
      "agents",
      "eval",
      "events",
      "testing",
      ...composers,
    ),
    message: "confidence/ is shared by delegate backends, distill and eval: it sits below them, on runtime/.",
  },
  {
    target: src("delegate"),
    from: src("distill", "agents", "eval", "events", ...composers),
    message:
      "delegate/ and agents/ meet only in src/compose/; distill/ builds on delegate/, not the reverse.",
  },
  {
    target: src("distill"),
    from: src("plan", "agents", "eval", "events", "testing", ...composers),
    message:
      "distill/ (the learned delegate) sits at delegate/'s level: delegate, traces, tools, runtime, store types.",
  },
  {
    target: src("agents"),
    from: src("delegate", "distill", "traces", "eval", "events", ...composers),
    message: "agents/ and delegate/ meet only in src/compose/.",
  },
  {
    target: src("events"),
    from: src("eval", "testing", ...composers),
    message:
      "events/ lists and bridges the channels of plan, delegate and agents; the root entry re-exports it.",
  },
  {
    target: src("compose"),
    from: aboveCompose,
    message:
      "compose/ is the composition root: cli/, ui/, mcp/'s plan server and distributed/'s worker build on it, not the reverse.",
  },
  {
    target: src("ui"),
    from: src("cli"),
    message:
      "The console composes through compose/ (the run and resume set-up), never through the CLI's code.",
  },
  {
    target: src(...folders),
    from: src("index.ts"),
    message:
      "src/index.ts only re-exports: import a name from the folder that defines it (or from src/compose/).",
  },
  {
    target: src("traces"),
    from: src("store", "plan", "confidence", "delegate", "distill", "agents", "eval", "events", ...composers),
    message: "traces/ sit below delegate/: the proposal shape and the prompt they read live in tools/.",
  },
  { target: src("eval"), from: src("plan", "agents", "events", ...composers) },
  {
    target: src("authoring"),
    from: src("delegate", "distill", "traces", "agents", "eval", "events", "testing", ...composers),
    message:
      "authoring/ writes plans for the engine: it builds on plan/ and tools/, not on the node types' parts.",
  },
  {
    target: src("testing"),
    from: src(
      "store",
      "plan",
      "confidence",
      "delegate",
      "distill",
      "traces",
      "agents",
      "eval",
      "events",
      ...composers,
    ),
  },
];

const messages = {
  plan: "Only types from plan/ (the executor seam); shared run-time code lives in runtime/.",
  store: "Only types from store/ (the records a run keeps); opening a store is the composition root's job.",
};

/**
 * Files that may import only types from the named folders (less the named entries of each), e.g.
 * `typesOnlyFrom(files, { plan: ["run-plan.js"] })`. One call per set of files: for a file, the last
 * `no-restricted-imports` setting wins.
 */
function typesOnlyFrom(files, folders) {
  return {
    files,
    ignores: ["src/**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: Object.entries(folders).map(([folder, allowed]) => ({
            group: [`**/${folder}/*`, ...allowed.map((f) => `!**/${folder}/${f}`)],
            allowTypeImports: true,
            message: messages[folder],
          })),
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
    plugins: { "import-x": importX, deputy: { rules: { "no-import-cycle": noImportCycle } } },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      // Not import-x/no-cycle: it skips type-only imports, and cycles through them went unseen (issue 22).
      "deputy/no-import-cycle": "error",
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
  // (startRun, newRunId, validatePlan) for plan delegation: the one value import it makes. distill/ reads the
  // records of a store it is handed (resolved escalations), never opens one.
  typesOnlyFrom(["src/delegate/**/*.ts"], { plan: [] }),
  typesOnlyFrom(["src/agents/**/*.ts"], { plan: ["run-plan.js", "validate-plan.js"] }),
  typesOnlyFrom(["src/distill/**/*.ts"], { store: [] }),
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
      },
    },
  },
);
