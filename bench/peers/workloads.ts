// The workloads every engine runs, and the checks that make a fast wrong answer fail. Each engine module
// (deputy.ts, langgraph.ts, mastra.ts, bare.ts) implements `runWorkload(w, dir)` the way its documentation
// recommends and returns what it computed; `checkOutcome` decides whether that is the right answer.

/** One benchmark cell: a shape, a size, and whether state is checkpointed durably. */
export interface Workload {
  /** Stable id, used in the table and by PROFILE / ONLY. */
  id: string;
  kind: "chain" | "dag" | "fan";
  /** chain: nodes; fan: items; dag: width × depth. */
  n: number;
  width?: number;
  depth?: number;
  /** fan: items in flight at once. */
  concurrency?: number;
  /** fan: what each item does. */
  item?: "noop" | "sleep";
  /** Checkpoint to SQLite (deputy, LangGraph) / LibSQL (Mastra). */
  durable: boolean;
}

/** Milliseconds each `sleep` item waits. */
export const SLEEP_MS = 1;

/**
 * What a run produced, in a shape every engine can give: chain → the final value (n); dag → every node's
 * value by id ("L.i"); fan → the value computed for each item, in the engine's result order.
 */
export type Outcome =
  | { kind: "chain"; value: number; steps: number }
  | { kind: "dag"; values: Map<string, number> }
  | { kind: "fan"; values: number[]; ordered: boolean };

/** Steps a workload runs (for per-step overhead). */
export function stepsOf(w: Workload): number {
  return w.kind === "dag" ? w.width! * w.depth! : w.n;
}

/**
 * Checks an outcome. chain: node i adds 1 to node i-1's value, so the end value is n only if every node ran
 * once, in order. dag: node (L, i) adds (L-1, i) and (L-1, i+1 mod width), layer 0 is 1, so every node of
 * layer L is 2^L only if each ran after both its parents. fan: item i returns i; every index exactly once,
 * and in index order where the engine defines the result order.
 */
export function checkOutcome(w: Workload, o: Outcome): string | undefined {
  if (o.kind !== w.kind) return `expected a ${w.kind} outcome, got ${o.kind}`;
  if (o.kind === "chain") {
    if (o.value !== w.n) return `chain ended at ${o.value}, expected ${w.n}`;
    if (o.steps !== w.n) return `chain ran ${o.steps} steps, expected ${w.n}`;
    return undefined;
  }
  if (o.kind === "dag") {
    if (o.values.size !== w.width! * w.depth!) return `dag has ${o.values.size} values`;
    for (let l = 0; l < w.depth!; l++)
      for (let i = 0; i < w.width!; i++) {
        const v = o.values.get(`${l}.${i}`);
        if (v !== 2 ** l) return `dag node ${l}.${i} = ${v}, expected ${2 ** l}`;
      }
    return undefined;
  }
  if (o.values.length !== w.n) return `fan-out returned ${o.values.length} of ${w.n} items`;
  const seen = new Uint8Array(w.n);
  for (let k = 0; k < o.values.length; k++) {
    const v = o.values[k]!;
    if (!Number.isInteger(v) || v < 0 || v >= w.n || seen[v])
      return `fan-out item value ${v} wrong or repeated`;
    seen[v] = 1;
    if (o.ordered && v !== k) return `fan-out result ${k} is item ${v}: order lost`;
  }
  return undefined;
}

/** The dag's dependencies of node (l, i): (l-1, i) and (l-1, i+1 mod width). */
export function parents(l: number, i: number, width: number): [string, string] {
  return [`${l - 1}.${i}`, `${l - 1}.${(i + 1) % width}`];
}

/** The full list, scaled by QUICK; `ONLY` (comma-separated ids or prefixes) narrows it. */
export function workloads(env: NodeJS.ProcessEnv): Workload[] {
  const quick = env.QUICK === "1";
  const items = Number(env.ITEMS ?? (quick ? 1_000 : 10_000));
  const chain = Number(env.CHAIN ?? (quick ? 200 : 1_000));
  const width = Number(env.WIDTH ?? (quick ? 50 : 200));
  const depth = 5;
  const list: Workload[] = [];
  for (const durable of [false, true]) {
    const d = durable ? "/durable" : "";
    list.push({ id: `chain${chain}${d}`, kind: "chain", n: chain, durable });
    list.push({ id: `dag${width}x${depth}${d}`, kind: "dag", n: width * depth, width, depth, durable });
    for (const item of ["noop", "sleep"] as const)
      for (const concurrency of [1, 8, 64])
        list.push({
          id: `fan${items}/${item}/c${concurrency}${d}`,
          kind: "fan",
          n: items,
          concurrency,
          item,
          durable,
        });
  }
  // Growth series: where a peer is superlinear in items, the smaller sizes show the curve.
  const growth = (env.GROWTH ?? (quick ? "" : "1000,2000,4000")).split(",").filter(Boolean).map(Number);
  for (const durable of [false, true])
    for (const n of growth)
      if (n !== items)
        list.push({
          id: `fan${n}/noop/c8${durable ? "/durable" : ""}`,
          kind: "fan",
          n,
          concurrency: 8,
          item: "noop",
          durable,
        });
  const only = env.ONLY?.split(",").filter(Boolean);
  return only ? list.filter((w) => only.some((o) => w.id === o || w.id.startsWith(o))) : list;
}
