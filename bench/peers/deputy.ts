// deputy: a plan JSON run by runPlan from the built package (dist/), as users run it. In memory the default
// store (MemoryRunStore) is used; durable runs use SqliteRunStore, deputy's checkpointing store.
// run.ts snapshots dist/ when it starts and passes the copy in DEPUTY_DIST, so a rebuild of dist/ by someone
// else during the run cannot hand a child half-written files; by hand it is ../../dist.
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Root from "../../dist/index.js";
import type * as Plan from "../../dist/plan/index.js";
import type * as Tools from "../../dist/tools/index.js";

const dist = process.env.DEPUTY_DIST ? pathToFileURL(`${process.env.DEPUTY_DIST}/`).href : "../../dist/";
const { runPlan } = (await import(`${dist}index.js`)) as typeof Root;
const { SqliteRunStore } = (await import(`${dist}plan/index.js`)) as typeof Plan;
const { defineTool } = (await import(`${dist}tools/index.js`)) as typeof Tools;
import { SLEEP_MS, parents, type Outcome, type Workload } from "./workloads.js";

/** Version shown in the table. */
export const version = "deputy (this checkout, dist/)";

const num = { type: "number" } as const;
const inc = defineTool({
  name: "inc",
  description: "v + 1",
  input: { type: "object", properties: { v: num }, required: ["v"], additionalProperties: false },
  run: async ({ v }: { v: number }) => v + 1,
});
const one = defineTool({ name: "one", description: "1", input: { type: "object" }, run: async () => 1 });
const add = defineTool({
  name: "add",
  description: "a + b",
  input: {
    type: "object",
    properties: { a: num, b: num },
    required: ["a", "b"],
    additionalProperties: false,
  },
  run: async ({ a, b }: { a: number; b: number }) => a + b,
});
const itemSchema = {
  type: "object",
  properties: { i: { type: "integer" } },
  required: ["i"],
  additionalProperties: false,
} as const;
const noop = defineTool({
  name: "noop",
  description: "i",
  input: itemSchema,
  run: async ({ i }: { i: number }) => i,
});
const nap = defineTool({
  name: "nap",
  description: "sleeps, then i",
  input: itemSchema,
  run: async ({ i }: { i: number }) => {
    await sleep(SLEEP_MS);
    return i;
  },
});

function plan(w: Workload): { plan: unknown; tools: unknown[] } {
  const metadata = { checkpoint: true, max_parallel_tasks: 128 };
  if (w.kind === "chain") {
    const nodes = Array.from({ length: w.n }, (_, i) => ({
      id: `n${i}`,
      tool: "inc",
      store_as: `n${i}`,
      args: { v: i === 0 ? 0 : `{artifacts.n${i - 1}}` },
      ...(i > 0 ? { depends_on: [`n${i - 1}`] } : {}),
    }));
    return { plan: { name: "chain", nodes, metadata }, tools: [inc] };
  }
  if (w.kind === "dag") {
    const nodes = [];
    const id = (key: string) => `n${key.replace(".", "_")}`;
    for (let l = 0; l < w.depth!; l++)
      for (let i = 0; i < w.width!; i++) {
        if (l === 0) {
          nodes.push({ id: id(`0.${i}`), tool: "one", store_as: id(`0.${i}`) });
          continue;
        }
        const [a, b] = parents(l, i, w.width!).map(id) as [string, string];
        nodes.push({
          id: id(`${l}.${i}`),
          tool: "add",
          store_as: id(`${l}.${i}`),
          depends_on: a === b ? [a] : [a, b],
          args: { a: `{artifacts.${a}}`, b: `{artifacts.${b}}` },
        });
      }
    return { plan: { name: "dag", nodes, metadata }, tools: [one, add] };
  }
  const list = defineTool({
    name: "list",
    description: "the items",
    input: { type: "object" },
    run: async () => Array.from({ length: w.n }, (_, i) => ({ i })),
  });
  const nodes = [
    { id: "src", tool: "list", store_as: "src" },
    {
      id: "each",
      tool: w.item === "sleep" ? "nap" : "noop",
      depends_on: ["src"],
      store_as: "r{index}",
      args: { i: "{item.i}" },
      for_each: { source: "{artifacts.src}", max_items: w.n, max_concurrency: w.concurrency! },
    },
  ];
  return { plan: { name: "fan", nodes, metadata }, tools: [list, noop, nap] };
}

/** Runs one workload; durable runs write to a fresh SQLite file under `dir`. */
export async function runWorkload(w: Workload, dir: string): Promise<() => Outcome> {
  const { plan: p, tools } = plan(w);
  const store = w.durable ? new SqliteRunStore(join(dir, "deputy.db")) : undefined;
  const m = await runPlan(p, { tools: tools as never, ...(store ? { store } : {}) });
  await store?.close();
  return () => {
    if (m.status !== "completed") throw new Error(`run ended ${m.status}: ${JSON.stringify(m.error)}`);
    const a = m.artifacts;
    if (w.kind === "chain") {
      let steps = 0;
      for (let i = 0; i < w.n; i++) if (m.nodes[`n${i}`]?.status === "ok") steps++;
      return { kind: "chain", value: a[`n${w.n - 1}`] as number, steps };
    }
    if (w.kind === "dag") {
      const values = new Map<string, number>();
      for (let l = 0; l < w.depth!; l++)
        for (let i = 0; i < w.width!; i++) values.set(`${l}.${i}`, a[`n${l}_${i}`] as number);
      return { kind: "dag", values };
    }
    const values = Array.from({ length: w.n }, (_, i) => a[`r${i}`] as number);
    return { kind: "fan", values, ordered: true };
  };
}
