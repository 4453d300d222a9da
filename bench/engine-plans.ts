// The engine benchmarks' plans (bench/engine.ts, bench/engine-compare.ts): a chain of no-op tool nodes, and a
// for_each fan-out of `items` no-op calls over a `list` tool's output.

/** `n` no-op nodes, each depending on the one before. */
export function chainPlan(n: number) {
  return {
    name: "chain",
    nodes: Array.from({ length: n }, (_, i) => ({
      id: `n${i}`,
      tool: "noop",
      store_as: `n${i}`,
      ...(i > 0 ? { depends_on: [`n${i - 1}`] } : {}),
    })),
    metadata: { checkpoint: true },
  };
}

/** A `list` node, then one no-op call per listed item at `concurrency`. */
export function fanPlan(concurrency: number, items: number) {
  return {
    name: "fan",
    nodes: [
      { id: "src", tool: "list", store_as: "src" },
      {
        id: "each",
        tool: "noop",
        depends_on: ["src"],
        store_as: "r_{index}",
        for_each: { source: "{artifacts.src}", max_items: items, max_concurrency: concurrency },
      },
    ],
  };
}
