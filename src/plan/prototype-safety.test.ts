import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { resumeRun, runPlan, type PlanInput } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { validatePlan } from "./validate-plan.js";
import { createHost } from "../compose/index.js";
import { PROTO_NAMES } from "../../test/prototype-names.js";

const key = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/));

const calls: unknown[] = [];
// A tool that mutates its input the way careless code does: were it handed Object.prototype, every object in the
// process would grow `polluted`.
const mutate = defineTool({
  name: "mutate",
  description: "writes into its input",
  input: { type: "object", properties: { value: {} } },
  run: ({ value }) => {
    calls.push(value);
    if (typeof value === "object" && value !== null) (value as Record<string, unknown>).polluted = true;
    return { seen: typeof value };
  },
});
const list = defineTool({
  name: "list",
  description: "returns its items",
  input: { type: "object", properties: { items: {} } },
  run: ({ items }) => items,
});

function plan(ids: string[], field: string) {
  return {
    name: "proto",
    nodes: [
      { id: "src", tool: "list", args: { items: ids.map((id) => ({ id })) }, store_as: "src" },
      {
        id: "each",
        tool: "mutate",
        depends_on: ["src"],
        args: { value: `{item.${field}}` },
        store_as: "{item.id}",
        for_each: { source: "{artifacts.src}", on_item_error: "collect" },
      },
      {
        id: "peek",
        tool: "mutate",
        depends_on: ["src"],
        args: { value: `{artifacts.src.${field}}` },
        store_as: "peek",
      },
    ],
  } satisfies PlanInput;
}

afterEach(() => {
  calls.length = 0;
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe("data never reaches the prototype (generated ids and paths)", () => {
  it("every item is stored under its own id, whatever the id; lookups never find inherited members", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(key, { minLength: 1, maxLength: 8 }), key, async (ids, field) => {
        calls.length = 0;
        const store = new MemoryRunStore();
        const m = await runPlan(plan(ids, field), { tools: [mutate, list], store });
        const each = m.nodes.each!;
        const stored = ids.filter((id) => id !== "__proto__");
        // No item is skipped as "already stored" because its id names a prototype member.
        expect(each.items!.reused).toBe(0);
        if (field === "id") {
          expect(each.items!.ok).toBe(stored.length);
          for (const id of stored) expect(Object.hasOwn(m.artifacts, id)).toBe(true);
        } else {
          // `{item.<field>}` where items have only `id`: a missing key, never an inherited function.
          expect(each.items!.ok).toBe(0);
        }
        // `{artifacts.src.<field>}` on a list: missing, never Array.prototype's members.
        expect(m.nodes.peek!.status).toBe("error");
        for (const value of calls)
          expect(typeof value === "function" || value === Object.prototype).toBe(false);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        const resumed = await resumeRun(m.runId, { tools: [mutate, list], store });
        expect(resumed.nodes.each!.items!.ok).toBe(each.items!.ok);
      }),
      { numRuns: 60 },
    );
  });

  it("an item index never finds a record through the prototype, in a fresh run, a resumed one or a loaded one", async () => {
    // Code elsewhere in the process that writes an index onto Object.prototype (careless, or an attack)
    // must not make an item look done.
    // (Not enumerable, so plan validation, which lists keys, does not see it; a lookup by index would.)
    const polluted = Object.prototype as Record<number, unknown>;
    Object.defineProperty(polluted, 1, {
      value: { index: 1, status: "ok", key: "x1" },
      configurable: true,
      enumerable: false,
      writable: true,
    });
    const dir = mkdtempSync(join(tmpdir(), "deputy-proto-"));
    const sqlite = new SqliteRunStore(join(dir, "runs.db"));
    try {
      const ids = ["a", "b", "c"];
      for (const store of [undefined, new MemoryRunStore(), sqlite]) {
        const m = await runPlan(plan(ids, "id"), { tools: [mutate, list], ...(store ? { store } : {}) });
        expect(m.nodes.each!.items).toMatchObject({ ok: 3, reused: 0 });
        expect(Object.hasOwn(m.artifacts, "b")).toBe(true);
        if (!store) continue;
        const resumed = await resumeRun(m.runId, { tools: [mutate, list], store });
        expect(resumed.nodes.each!.items).toMatchObject({ ok: 3 });
      }
    } finally {
      delete polluted[1];
      await sqlite.close();
    }
  });

  it("the SQLite store loads data keys that name prototype members as data", async () => {
    const store = new SqliteRunStore(join(mkdtempSync(join(tmpdir(), "deputy-proto-")), "runs.db"));
    try {
      const ids = ["constructor", "toString", "hasOwnProperty", "valueOf", "plain"];
      const m = await runPlan(plan(ids, "id"), { tools: [mutate, list], store });
      expect(m.nodes.each!.items!.ok).toBe(5);
      const loaded = (await store.load(m.runId))!;
      for (const id of ids) expect(Object.hasOwn(loaded.artifacts, id)).toBe(true);
      calls.length = 0;
      const resumed = await resumeRun(m.runId, { tools: [mutate, list], store });
      expect(resumed.nodes.each!.items!.ok).toBe(5);
      expect(calls.filter((c) => typeof c === "string")).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it('store_as "__proto__" and node type "constructor" are plan issues with the node id', () => {
    const { host, nodeTypes } = createHost({ tools: [mutate, list] });
    // As read from a file (in TypeScript, the unknown types are compile errors).
    const read: unknown = {
      name: "p",
      nodes: [
        { id: "a", tool: "list", args: {}, store_as: "__proto__" },
        { id: "b", type: "constructor", store_as: "b" },
        { id: "c", type: "toString", store_as: "c" },
      ],
    };
    const report = validatePlan(read, { host, nodeTypes });
    expect(report.ok).toBe(false);
    expect(report.issues.map((i) => [i.nodeId, i.code])).toEqual(
      expect.arrayContaining([
        ["a", "invalid_store_as"],
        ["b", "invalid_type"],
        ["c", "invalid_type"],
      ]),
    );
  });
});
