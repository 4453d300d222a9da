// The floor: a bare Promise pool (no engine) doing the same fan-out items, so per-item overhead can be read
// as "engine cost over doing the work with nothing". Chain and DAG are not run on it. With BARE_NAMED=1 it also
// keeps each item's result under its own name (`named["r" + k]`, a null-prototype object), as deputy's
// `store_as: "r{index}"` does: the floor of that output shape (bench/RESULTS.md, fourth pass).
import { setTimeout as sleep } from "node:timers/promises";
import { SLEEP_MS, type Outcome, type Workload } from "./workloads.js";

/** Version shown in the table. */
export const version = "bare Promise pool (no engine, no durability)";

/** Runs a fan-out workload with `concurrency` workers pulling the next index. */
export async function runWorkload(w: Workload): Promise<() => Outcome> {
  if (w.kind !== "fan") throw new Error("bare runs fan-out workloads only");
  const items = Array.from({ length: w.n }, (_, i) => ({ i }));
  const work =
    w.item === "sleep"
      ? async ({ i }: { i: number }) => {
          await sleep(SLEEP_MS);
          return i;
        }
      : async ({ i }: { i: number }) => i;
  const out: number[] = new Array(w.n);
  const named: Record<string, number> | undefined =
    process.env.BARE_NAMED === "1" ? Object.create(null) : undefined;
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      out[k] = await work(items[k]!);
      if (named) named[`r${k}`] = out[k];
    }
  };
  await Promise.all(Array.from({ length: w.concurrency! }, worker));
  return () => ({ kind: "fan", values: out, ordered: true });
}
