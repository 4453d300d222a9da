import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { freshDatabase } from "../../test/postgres-database.js";
import { main } from "../cli/main.js";
import { runPlan } from "../compose/index.js";
import { PostgresRunStore } from "../store/postgres-run-store.js";
import { defineTool } from "../tools/define-tool.js";

const url = inject("pgUrl");

describe("cached tool results on PostgreSQL (shared by every process on the store)", () => {
  it("a second store object (another process) reuses the first one's results; deputy cache clear empties it", async () => {
    const db = await freshDatabase(url);
    const calls: string[] = [];
    const lookup = defineTool({
      name: "lookup",
      description: "Looks a customer up",
      input: z.object({ q: z.string() }),
      delegateSafe: true,
      cache: { ttl: 600 },
      run: ({ q }) => {
        calls.push(q);
        return { customer: q.toUpperCase() };
      },
    });
    const plan = {
      name: "cached",
      nodes: [
        {
          id: "each",
          tool: "lookup",
          args: { q: "{item}" },
          store_as: "r_{index}",
          for_each: { source: "{artifacts.qs}", max_concurrency: 1 },
        },
      ],
    };
    const run = async () => {
      const store = new PostgresRunStore(db);
      try {
        return await runPlan(plan, { tools: [lookup], store, artifacts: { qs: ["a", "b", "a"] } });
      } finally {
        await store.close();
      }
    };
    await run();
    expect(calls).toEqual(["a", "b"]);
    const second = await run();
    expect(calls).toEqual(["a", "b"]);
    expect(second.nodes.each!.itemDetails).toEqual({
      0: { cached: true },
      1: { cached: true },
      2: { cached: true },
    });
    let stdout = "";
    const code = await main(["cache", "clear", "--tool", "lookup", "--store", db, "--json"], {
      stdout: (t) => (stdout += t),
      stderr: () => {},
      isTTY: false,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ deleted: 2, tool: "lookup" });
    await run();
    expect(calls).toEqual(["a", "b", "a", "b"]);
  });
});
