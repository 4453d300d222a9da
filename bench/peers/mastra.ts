// Mastra 1.x workflows: steps made with createStep (zod input/output schemas), composed with
// createWorkflow(...).then(...) for the chain, .parallel([...]) layers for the DAG (Mastra has no per-edge
// joins: a layer waits for the whole previous one) and .foreach(step, { concurrency }) for the fan-out (since
// 1.x a queue of `concurrency` workers, a sliding window like deputy's; 0.x ran chunks of that size).
// Every option is left at its 1.x default, as a user gets it: that includes `validateInputs: true` (each
// step's input is parsed with its zod schema; 0.x defaulted to false), the counterpart of deputy's argument
// check. Durable runs register the workflow on a Mastra instance with a LibSQLStore (1.x requires its `id`),
// which upserts the whole workflow snapshot before and after each step and after each foreach item.
import { createRequire } from "node:module";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Mastra } from "@mastra/core/mastra";
import { createStep, createWorkflow } from "@mastra/core/workflows";
import { LibSQLStore } from "@mastra/libsql";
import { z } from "zod";
import { SLEEP_MS, parents, type Outcome, type Workload } from "./workloads.js";

const require = createRequire(import.meta.url);
/** Version shown in the table. */
export const version = `@mastra/core ${require("@mastra/core/package.json").version}, @mastra/libsql ${require("@mastra/libsql/package.json").version}`;

const V = z.object({ v: z.number() });
const Item = z.object({ i: z.number().int() });

const stepId = (key: string) => `n${key.replace(".", "_")}`;
// MASTRA_VALIDATE_INPUTS=0 turns 1.x's default input parsing off, as 0.x ran: what the check itself costs
// (bench/RESULTS.md, "Peers at their current majors"). The table is measured with the default.
const options = process.env.MASTRA_VALIDATE_INPUTS === "0" ? { options: { validateInputs: false } } : {};

function build(w: Workload): any {
  if (w.kind === "chain") {
    let wf: any = createWorkflow({ id: "chain", inputSchema: V, outputSchema: V, ...options });
    for (let i = 0; i < w.n; i++)
      wf = wf.then(
        createStep({
          id: `n${i}`,
          inputSchema: V,
          outputSchema: V,
          execute: async ({ inputData }) => ({ v: inputData.v + 1 }),
        }),
      );
    return wf.commit();
  }
  if (w.kind === "dag") {
    const Layer = z.record(z.string(), V);
    let wf: any = createWorkflow({ id: "dag", inputSchema: z.object({}), outputSchema: Layer, ...options });
    for (let l = 0; l < w.depth!; l++) {
      const layer = Array.from({ length: w.width! }, (_, i) => {
        const [a, b] = parents(l, i, w.width!).map(stepId) as [string, string];
        return createStep({
          id: `n${l}_${i}`,
          inputSchema: l === 0 ? z.object({}) : Layer,
          outputSchema: V,
          execute: async ({ inputData }: { inputData: Record<string, { v: number }> }) =>
            l === 0 ? { v: 1 } : { v: inputData[a]!.v + inputData[b]!.v },
        });
      });
      wf = wf.parallel(layer);
    }
    return wf.commit();
  }
  const src = createStep({
    id: "src",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.array(Item),
    execute: async ({ inputData }) => Array.from({ length: inputData.n }, (_, i) => ({ i })),
  });
  const work = createStep({
    id: "work",
    inputSchema: Item,
    outputSchema: Item,
    execute:
      w.item === "sleep"
        ? async ({ inputData }) => {
            await sleep(SLEEP_MS);
            return { i: inputData.i };
          }
        : async ({ inputData }) => ({ i: inputData.i }),
  });
  return createWorkflow({
    id: "fan",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.array(Item),
    ...options,
  })
    .then(src)
    .foreach(work, { concurrency: w.concurrency! })
    .commit();
}

/** Runs one workload; durable runs persist to a fresh LibSQL file under `dir`. */
export async function runWorkload(w: Workload, dir: string): Promise<() => Outcome> {
  let wf = build(w);
  if (w.durable) {
    const mastra = new Mastra({
      workflows: { [wf.id]: wf },
      storage: new LibSQLStore({ id: "bench", url: `file:${join(dir, "mastra.db")}` }),
      logger: false,
    });
    wf = mastra.getWorkflow(wf.id);
  }
  const run = await wf.createRun();
  const input = w.kind === "chain" ? { v: 0 } : w.kind === "fan" ? { n: w.n } : {};
  const r = await run.start({ inputData: input });
  return () => {
    if (r.status !== "success") throw new Error(`run ended ${r.status}: ${r.error?.message ?? ""}`);
    if (w.kind === "chain") {
      let steps = 0;
      for (let i = 0; i < w.n; i++) if (r.steps[`n${i}`]?.status === "success") steps++;
      return { kind: "chain", value: r.result.v, steps };
    }
    if (w.kind === "dag") {
      const values = new Map<string, number>();
      for (const [id, s] of Object.entries(r.steps as Record<string, any>)) {
        const m = /^n(\d+)_(\d+)$/.exec(id);
        if (m && s.status === "success") values.set(`${m[1]}.${m[2]}`, s.output.v);
      }
      return { kind: "dag", values };
    }
    return { kind: "fan", values: (r.result as { i: number }[]).map((x) => x.i), ordered: true };
  };
}
