// LangGraph.js: a StateGraph per workload, as its docs show: state channels declared with Annotation, edges
// for the chain and DAG (a join edge `addEdge([a, b], c)` waits for both parents), a conditional edge that
// returns one `Send` per item for the fan-out (map-reduce with a concat reducer), `maxConcurrency` in the
// run config as the concurrency knob (it bounds the tasks of one superstep), and SqliteSaver as the
// durable checkpointer.
import { createRequire } from "node:module";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Annotation, END, START, Send, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SLEEP_MS, parents, type Outcome, type Workload } from "./workloads.js";

const require = createRequire(import.meta.url);
/** Version shown in the table. */
export const version = `@langchain/langgraph ${require("@langchain/langgraph/package.json").version}, checkpoint-sqlite ${require("@langchain/langgraph-checkpoint-sqlite/package.json").version}`;

const ChainState = Annotation.Root({ v: Annotation<number>, steps: Annotation<number> });
const DagState = Annotation.Root({
  vals: Annotation<Record<string, number>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
});
const FanState = Annotation.Root({
  n: Annotation<number>,
  items: Annotation<{ i: number }[]>,
  results: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

function build(w: Workload): any {
  if (w.kind === "chain") {
    const g: any = new StateGraph(ChainState);
    for (let i = 0; i < w.n; i++)
      g.addNode(`n${i}`, async (s: { v: number; steps: number }) => ({ v: s.v + 1, steps: s.steps + 1 }));
    g.addEdge(START, "n0");
    for (let i = 1; i < w.n; i++) g.addEdge(`n${i - 1}`, `n${i}`);
    g.addEdge(`n${w.n - 1}`, END);
    return g;
  }
  if (w.kind === "dag") {
    const g: any = new StateGraph(DagState);
    const id = (key: string) => `n${key.replace(".", "_")}`;
    for (let l = 0; l < w.depth!; l++)
      for (let i = 0; i < w.width!; i++) {
        const key = `${l}.${i}`;
        if (l === 0) {
          g.addNode(id(key), async () => ({ vals: { [key]: 1 } }));
          g.addEdge(START, id(key));
          continue;
        }
        const [a, b] = parents(l, i, w.width!);
        g.addNode(id(key), async (s: { vals: Record<string, number> }) => ({
          vals: { [key]: s.vals[a]! + s.vals[b]! },
        }));
        g.addEdge(a === b ? id(a) : [id(a), id(b)], id(key));
        if (l === w.depth! - 1) g.addEdge(id(key), END);
      }
    return g;
  }
  const work =
    w.item === "sleep"
      ? async ({ i }: { i: number }) => {
          await sleep(SLEEP_MS);
          return { results: [i] };
        }
      : async ({ i }: { i: number }) => ({ results: [i] });
  return new StateGraph(FanState)
    .addNode("src", async (s) => ({ items: Array.from({ length: s.n }, (_, i) => ({ i })) }))
    .addNode("work", work as never)
    .addEdge(START, "src")
    .addConditionalEdges("src", (s) => s.items.map((item) => new Send("work", item)))
    .addEdge("work", END);
}

/** Runs one workload; durable runs checkpoint to a fresh SQLite file under `dir`. */
export async function runWorkload(w: Workload, dir: string): Promise<() => Outcome> {
  const saver = w.durable ? SqliteSaver.fromConnString(join(dir, "langgraph.db")) : undefined;
  const graph = build(w).compile(saver ? { checkpointer: saver } : {});
  const config = {
    recursionLimit: w.n + 10,
    ...(w.concurrency ? { maxConcurrency: w.concurrency } : {}),
    ...(saver ? { configurable: { thread_id: "bench" } } : {}),
  };
  const input = w.kind === "chain" ? { v: 0, steps: 0 } : w.kind === "fan" ? { n: w.n } : {};
  const out = await graph.invoke(input, config);
  (saver as { db?: { close(): void } } | undefined)?.db?.close();
  return () => {
    if (w.kind === "chain") return { kind: "chain", value: out.v, steps: out.steps };
    if (w.kind === "dag") return { kind: "dag", values: new Map(Object.entries(out.vals as object)) };
    // Send branches finish in any order; the reducer appends them as they land.
    return { kind: "fan", values: out.results, ordered: false };
  };
}
