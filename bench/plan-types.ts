// What typed plans cost the compiler: a plan of N nodes (tool and delegate nodes, alternating, each depending on
// the one before) written three ways — JSON.parse of its text (`any`: nothing checked), an object literal with
// `satisfies PlanInput`, and the `plan()` builder — each in a file of its own, checked by `tsc --noEmit
// --extendedDiagnostics` against the built package's types (dist/), as a user's editor checks it. The table
// gives tsc's check time and type instantiations per style and size, and each style's ratio to the untyped one.
// Run: npm run bench:plan-types (builds dist/ first); SIZES=10,100,500 picks plan sizes, ROUNDS=3 the tsc runs per cell (median). Nothing is asserted.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const sizes = (process.env.SIZES ?? "10,100,500").split(",").map(Number);
const tsc = join(root, "node_modules/typescript/bin/tsc");

function node(i: number) {
  const deps = i > 0 ? `depends_on: ["n${i - 1}"], ` : "";
  return i % 2 === 0
    ? `{ id: "n${i}", ${deps}tool: "echo", args: { value: ${i} }, store_as: "a${i}" }`
    : `{ id: "n${i}", type: "delegate", ${deps}instruction: "Pick one for {artifacts.a${i - 1}}", tools: ["echo"], on_reject: "escalate", store_as: "a${i}" }`;
}

function builderCall(i: number) {
  const deps = i > 0 ? `depends_on: ["n${i - 1}"], ` : "";
  return i % 2 === 0
    ? `.tool("n${i}", { ${deps}tool: "echo", args: { value: ${i} }, store_as: "a${i}" })`
    : `.delegate("n${i}", { ${deps}instruction: "Pick one for {artifacts.a${i - 1}}", tools: ["echo"], on_reject: "escalate", store_as: "a${i}" })`;
}

const styles: Record<string, (n: number) => string> = {
  "JSON.parse (untyped)": (n) => {
    const nodes = Array.from({ length: n }, (_, i) => node(i).replace(/(\w+):/g, '"$1":'));
    return `import { runPlan } from "deputy-js";\nconst p = JSON.parse(${JSON.stringify(`{"name":"p","nodes":[${nodes.join(",")}]}`)});\nexport const run = () => runPlan(p, { tools: [] });\n`;
  },
  "satisfies PlanInput": (n) =>
    `import { runPlan, type PlanInput } from "deputy-js";\nconst p = { name: "p", nodes: [\n${Array.from({ length: n }, (_, i) => node(i)).join(",\n")}\n] } satisfies PlanInput;\nexport const run = () => runPlan(p, { tools: [] });\n`,
  "plan() builder": (n) =>
    `import { plan, runPlan } from "deputy-js";\nconst p = plan("p")\n${Array.from({ length: n }, (_, i) => builderCall(i)).join("\n")}\n.build();\nexport const run = () => runPlan(p, { tools: [] });\n`,
};

const ROUNDS = Number(process.env.ROUNDS ?? 3);

// The median check time of ROUNDS tsc processes (the machine is shared); instantiations do not vary.
function measure(source: string): { checkMs: number; instantiations: number } {
  const runs = Array.from({ length: ROUNDS }, () => measureOnce(source)).sort(
    (a, b) => a.checkMs - b.checkMs,
  );
  return runs[Math.floor(runs.length / 2)]!;
}

function measureOnce(source: string): { checkMs: number; instantiations: number } {
  // Inside the repository, so that `deputy-js` resolves to this package (its dist/) as a user's install would.
  const dir = mkdtempSync(join(root, "bench/.plan-types-"));
  try {
    writeFileSync(join(dir, "plan.ts"), source);
    const config = {
      compilerOptions: {
        strict: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2023",
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      },
      files: ["plan.ts"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
    const out = execFileSync(process.execPath, [tsc, "-p", dir, "--extendedDiagnostics"], {
      encoding: "utf8",
    });
    const num = (label: string) => Number(new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(out)?.[1] ?? NaN);
    return { checkMs: num("Check time") * 1000, instantiations: num("Instantiations") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: string[][] = [];
for (const n of sizes) {
  const base = measure(styles["JSON.parse (untyped)"]!(n));
  for (const [style, write] of Object.entries(styles)) {
    const m = style.startsWith("JSON") ? base : measure(write(n));
    rows.push([
      String(n),
      style,
      m.checkMs.toFixed(0),
      String(m.instantiations),
      (m.checkMs / Math.max(base.checkMs, 1)).toFixed(1) + "×",
      (m.instantiations / Math.max(base.instantiations, 1)).toFixed(1) + "×",
    ]);
  }
}
const head = ["nodes", "style", "check ms", "instantiations", "check vs untyped", "inst. vs untyped"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ");
console.log(line(head));
for (const r of rows) console.log(line(r));
