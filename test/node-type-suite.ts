import { describe, expect, it } from "vitest";
import { builtInNodeTypes, createHost, runPlan, type HostOptions } from "../src/index.js";
import type { ExecutionHost } from "../src/plan/node-executor.js";
import type { NodeType } from "../src/plan/node-type.js";
import { NodeTypeTable } from "../src/plan/node-type-table.js";
import { planJsonSchema } from "../src/plan/plan-json-schema.js";
import { baseNodeShape } from "../src/plan/plan-schema.js";
import type { RunManifest } from "../src/plan/run-manifest.js";
import { startRun } from "../src/plan/run-plan.js";
import { validatePlan } from "../src/plan/validate-plan.js";
import { compileSchema } from "../src/schema/validator.js";

/**
 * How one node type takes part in {@link nodeTypeSuite}. The suite's plans use the node ids `single`, `each`
 * (a for_each over `["a", "b", "c"]`), `writer` and `reader`: a host whose answers are scripted per node (a
 * `ScriptedDelegate`) answers those.
 */
export interface NodeTypeSuiteOptions {
  /** Shown in the describe block. Default: the type's name. */
  name?: string;
  /** The type under test; one that is not built in is registered with `nodeTypes`. */
  type: NodeType<any>;
  /** What the runs are wired with (tools, delegates, agents); made afresh for every run. */
  host: () => Omit<HostOptions, "nodeTypes">;
  /** The own fields of a node that succeeds. */
  ok: Record<string, unknown>;
  /** The own fields of a node that succeeds for every item (`{item}` in its templated fields). */
  perItem: Record<string, unknown>;
  /** The own fields of a node that succeeds and whose templated fields read `{artifacts.written}`. */
  reads: Record<string, unknown>;
  /** Own fields that the type's own checks refuse, and the issue code they report. */
  invalid: { fields: Record<string, unknown>; code: string };
}

const ITEMS = ["a", "b", "c"];

/**
 * The conformance suite every node type passes, built-in or a user's: it registers beside the built-in types,
 * its fields are part of the plan schema (strict: an unknown field is an issue), its own checks and its templated
 * fields are reported with the node's id, it runs as a node and under for_each (prepared or not, with the same
 * results), what it keeps in `details` has the declared shape and what it reads of the host is declared.
 */
export function nodeTypeSuite(options: NodeTypeSuiteOptions): void {
  const { type } = options;
  const builtIn = builtInNodeTypes.includes(type);
  const wiring = (extra: Partial<HostOptions> = {}): HostOptions => ({
    ...options.host(),
    ...(builtIn ? {} : { nodeTypes: [type] }),
    ...extra,
  });
  const node = (id: string, fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id,
    type: type.name,
    store_as: `${id}_out`,
    ...fields,
    ...extra,
  });
  const plan = (...nodes: Record<string, unknown>[]) => ({ name: `suite-${type.name}`, nodes });
  const eachNode = () =>
    node("each", options.perItem, {
      store_as: "each_{index}",
      depends_on: ["list"],
      for_each: { source: "{artifacts.list}" },
    });
  const checkDetails = (m: RunManifest, id: string) => {
    const all = [m.nodes[id]!.details, ...Object.values(m.nodes[id]!.itemDetails ?? {})].filter(Boolean);
    for (const details of all) {
      if (type.details) expect(type.details.safeParse(details).success, JSON.stringify(details)).toBe(true);
    }
  };

  describe(`node type conformance: ${options.name ?? type.name}`, () => {
    it("registers beside the built-in types; its fields are its own", () => {
      const table = new NodeTypeTable(builtIn ? builtInNodeTypes : [...builtInNodeTypes, type]);
      expect(table.get(type.name)).toBe(type);
      expect(table.names).toContain(type.name);
      expect(() => new NodeTypeTable([...builtInNodeTypes, type].concat(builtIn ? [] : [type]))).toThrow(
        /unique names/,
      );
    });

    it("names only its own and the engine's fields in what a model may write; its console view is data", () => {
      const writes = type.modelWrites;
      const known = new Set([...Object.keys(baseNodeShape), ...Object.keys(type.fields)]);
      const named = writes
        ? [
            ...writes.free,
            ...Object.keys(writes.rules ?? {}),
            ...(writes.toolFields ?? []),
            ...(writes.nested ?? []),
          ]
        : [];
      expect(named.filter((f) => !known.has(f))).toEqual([]);
      // A field a repair may change freely has no rule besides.
      expect(writes?.free.filter((f) => Object.hasOwn(writes.rules ?? {}, f)) ?? []).toEqual([]);
      for (const definition of [
        node("single", options.ok),
        { id: "x" },
        { id: "x", ...options.invalid.fields },
      ]) {
        const view = type.consoleView?.(definition) ?? {};
        expect(typeof view).toBe("object");
        if (view.threshold) {
          expect(typeof view.threshold.label).toBe("string");
          expect(view.threshold.value).toBeGreaterThanOrEqual(0);
          expect(view.threshold.value).toBeLessThanOrEqual(1);
        }
      }
    });

    it("is part of the plan JSON Schema: a valid node passes, an unknown field is refused", () => {
      const { host, nodeTypes } = createHost(wiring());
      const check = compileSchema(planJsonSchema(nodeTypes));
      expect(check(plan(node("single", options.ok))), JSON.stringify(check.errors)).toBe(true);
      expect(check(plan(node("single", options.ok, { bogus: 1 })))).toBe(false);
      const report = validatePlan(plan(node("single", options.ok, { bogus: 1 })), { host, nodeTypes });
      expect(report.issues).toContainEqual(
        expect.objectContaining({ code: "unknown_field", nodeId: "single", severity: "error" }),
      );
    });

    it("reports its own checks with the node's id", () => {
      const { host, nodeTypes } = createHost(wiring());
      const ok = validatePlan(plan(node("single", options.ok)), { host, nodeTypes });
      expect(ok.issues.filter((i) => i.severity === "error")).toEqual([]);
      const bad = validatePlan(plan(node("single", options.invalid.fields)), { host, nodeTypes });
      expect(bad.issues).toContainEqual(
        expect.objectContaining({ code: options.invalid.code, nodeId: "single", severity: "error" }),
      );
    });

    it("has its templated fields reference-checked: what they read must be depended on", () => {
      const { host, nodeTypes } = createHost(wiring());
      const writer = node("writer", options.ok, { store_as: "written" });
      const missing = validatePlan(plan(writer, node("reader", options.reads)), { host, nodeTypes });
      expect(missing.issues).toContainEqual(
        expect.objectContaining({ code: "missing_dependency", nodeId: "reader" }),
      );
      const sound = plan(writer, node("reader", options.reads, { depends_on: ["writer"] }));
      expect(validatePlan(sound, { host, nodeTypes }).ok).toBe(true);
    });

    it("runs a node: its value stored under store_as, its details of the declared shape", async () => {
      const writer = node("writer", options.ok, { store_as: "written" });
      const m = await runPlan(
        plan(writer, node("reader", options.reads, { depends_on: ["writer"] })),
        wiring(),
      );
      expect(m.status, JSON.stringify(m.nodes)).toBe("completed");
      expect(m.nodes.reader).toMatchObject({ type: type.name, status: "ok", storedKeys: ["reader_out"] });
      expect(m.artifacts.written).toBeDefined();
      expect(m.artifacts.reader_out).toBeDefined();
      checkDetails(m, "writer");
      checkDetails(m, "reader");
    });

    it("runs every for_each item, prepared or not, to the same results", async () => {
      const fanOut = plan({ id: "list", type: "list", store_as: "list" }, eachNode());
      const withList = (extra: Partial<HostOptions> = {}) =>
        wiring({ ...extra, nodeTypes: [...(builtIn ? [] : [type]), listNodeType] });
      const prepared = await runPlan(fanOut, withList());
      expect(prepared.status, JSON.stringify(prepared.nodes.each)).toBe("completed");
      expect(prepared.nodes.each!.items).toMatchObject({ total: ITEMS.length, ok: ITEMS.length });
      checkDetails(prepared, "each");
      // The same executor without `prepare`: every item through `execute`.
      const executor = type.executor;
      const plain = await runPlan(
        fanOut,
        withList({ executors: { [type.name]: { execute: (n, u) => executor.execute(n, u) } } }),
      );
      const values = (m: RunManifest) => ITEMS.map((_, i) => m.artifacts[`each_${i}`]);
      expect(values(plain)).toEqual(values(prepared));
      expect(plain.nodes.each!.items).toEqual(prepared.nodes.each!.items);
    });

    it("reads only the host fields it declares (and `tools`)", async () => {
      const { host, nodeTypes } = createHost(wiring());
      const read = new Set<string>();
      const watched = new Proxy(host, {
        get(target, key, receiver) {
          if (typeof key === "string") read.add(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      const m = await startRun(plan(node("single", options.ok)), { host: watched, nodeTypes });
      expect(m.status).toBe("completed");
      const allowed = new Set<string>(["tools", ...(type.capabilities ?? [])]);
      // Probing a field the host does not have (an optional one, like a budget scope) reads nothing from it.
      const undeclared = [...read].filter((k) => !allowed.has(k) && k in host);
      expect(undeclared).toEqual([]);
    });

    it("is refused where the host lacks a capability it declares", () => {
      const { host, nodeTypes } = createHost(wiring());
      const capability = type.capabilities?.[0];
      if (!capability) return; // needs nothing beyond tools
      const lacking = { ...host } as Partial<ExecutionHost>;
      delete lacking[capability];
      const report = validatePlan(plan(node("single", options.ok)), {
        host: lacking as ExecutionHost,
        nodeTypes,
      });
      expect(report.issues).toContainEqual(
        expect.objectContaining({ code: "missing_capability", nodeId: "single" }),
      );
    });
  });
}

/** A node type of the suite's own: stores the list its for_each nodes fan out over. */
const listNodeType: NodeType = {
  name: "list",
  fields: {},
  executor: { execute: async () => ({ status: "ok", value: ITEMS }) },
};
