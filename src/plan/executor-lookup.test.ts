import { describe, expect, it } from "vitest";
import { createHost } from "../compose/index.js";
import type { NodeExecutor } from "./node-executor.js";
import { NodeTypeTable } from "./node-type-table.js";
import type { NodeType } from "./node-type.js";
import { startRun } from "./run-plan.js";

/** Counts how often the engine asks for an executor. */
class CountingTable extends NodeTypeTable {
  asked = 0;
  override executorOf(name: string): NodeExecutor<any> | undefined {
    this.asked++;
    return super.executorOf(name);
  }
}

const listType = (n: number): NodeType => ({
  name: "list",
  fields: {},
  executor: { execute: async () => ({ status: "ok", value: Array.from({ length: n }, (_, i) => i) }) },
});
// No `prepare`: every item goes through `execute`, the path that used to look the executor up per item.
const doubleType: NodeType = {
  name: "double",
  fields: {},
  executor: { execute: async (_node, unit) => ({ status: "ok", value: (unit.scope.item as number) * 2 }) },
};

async function lookups(items: number): Promise<number> {
  const { host } = createHost({ tools: [] });
  const nodeTypes = new CountingTable([listType(items), doubleType]);
  const manifest = await startRun(
    {
      name: "fan",
      nodes: [
        { id: "src", type: "list", store_as: "src" },
        {
          id: "each",
          type: "double",
          depends_on: ["src"],
          store_as: "d_{index}",
          for_each: { source: "{artifacts.src}" },
        },
      ],
    },
    { host, nodeTypes },
  );
  expect(manifest.nodes.each!.items).toMatchObject({ total: items, ok: items });
  return nodeTypes.asked;
}

describe("the engine's executor lookup", () => {
  it("is once per node, not per for_each item", async () => {
    const few = await lookups(3);
    expect(await lookups(300)).toBe(few);
    expect(few).toBeLessThanOrEqual(4); // validation and the run, for two nodes
  });
});
