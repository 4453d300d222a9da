import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { builtInNodeTypes, createHost, runPlan, type PlanNode } from "../compose/index.js";
import { defineNodeType, type NodeType } from "./node-type.js";
import { NodeTypeTable } from "./node-type-table.js";
import { validatePlan } from "./validate-plan.js";
import { renderString } from "../runtime/template.js";

const stamp = defineNodeType({
  name: "stamp",
  fields: { label: z.string().min(1) },
  templated: (node) => [["label", node.label]],
  executor: {
    // `node.label` is typed from the fields: a string.
    execute: async (node, unit) => ({
      status: "ok",
      value: String(renderString(node.label, unit.scope)).toUpperCase(),
    }),
  },
});

describe("NodeTypeTable", () => {
  it("refuses a repeated name, a bad name, a field the engine owns, two implicit types and a stray executor", () => {
    const bad =
      (types: NodeType<any>[], executors = {}) =>
      () =>
        new NodeTypeTable(types, executors);
    expect(bad([stamp, stamp])).toThrow(/unique names/);
    expect(bad([{ ...stamp, name: "9lives" }])).toThrow(InvalidOptionError);
    expect(bad([{ ...stamp, fields: { store_as: z.string() } }])).toThrow(
      /nodeTypes\.stamp\.fields\.store_as/,
    );
    expect(bad([{ ...stamp, fields: { type: z.string() } }])).toThrow(/engine owns/);
    expect(bad([...builtInNodeTypes, { ...stamp, implicit: true }])).toThrow(/at most one implicit/);
    expect(bad([stamp], { stomp: { execute: stamp.executor.execute } })).toThrow(/executors\.stomp/);
    expect(bad([stamp], { stamp: {} })).toThrow(/NodeExecutor/);
  });

  it("finds own names only", () => {
    const table = new NodeTypeTable(builtInNodeTypes);
    expect(table.get("constructor")).toBeUndefined();
    expect(table.executorOf("toString")).toBeUndefined();
    expect(table.implicit).toBe("tool");
    expect(table.describeNames()).toBe('"tool", "delegate" or "agent"');
  });
});

describe("a registered node type", () => {
  const plan = {
    name: "stamped",
    nodes: [
      { id: "seed", type: "stamp", label: "first", store_as: "seed" },
      {
        id: "again",
        type: "stamp",
        label: "{artifacts.seed} again",
        store_as: "again",
        depends_on: ["seed"],
      },
    ],
  };

  it("runs with runPlan's nodeTypes, and its name joins the type message", async () => {
    const m = await runPlan(plan, { tools: [], nodeTypes: [stamp] });
    expect(m.status).toBe("completed");
    expect(m.artifacts).toMatchObject({ seed: "FIRST", again: "FIRST AGAIN" });
    expect(m.nodes.again!.type).toBe("stamp");
    const { host, nodeTypes } = createHost({ tools: [], nodeTypes: [stamp] });
    // Read at run time (a misspelt type in TypeScript is a compile error): `unknown`, as a parsed file is.
    const misspelt: unknown = { name: "p", nodes: [{ id: "a", type: "stump", store_as: "a" }] };
    const report = validatePlan(misspelt, { host, nodeTypes });
    expect(report.issues[0]!.message).toBe(
      'type must be "tool", "delegate", "agent" or "stamp", got "stump"',
    );
  });

  it("is unknown without registration, and its executor can be swapped like a built-in's", async () => {
    await expect(runPlan(plan, { tools: [] })).rejects.toThrow(/type must be "tool", "delegate" or "agent"/);
    const m = await runPlan(plan, {
      tools: [],
      nodeTypes: [stamp],
      executors: { stamp: { execute: async (node) => ({ status: "ok", value: `swapped ${node.id}` }) } },
    });
    expect(m.artifacts).toMatchObject({ seed: "swapped seed", again: "swapped again" });
  });
});

describe("the built-in nodes' type", () => {
  it("is a discriminated union: `type` narrows to each type's own fields", () => {
    // Type-checked: each branch reads a field only its own type has.
    const own = (n: PlanNode): unknown =>
      n.type === "delegate" ? n.tools : n.type === "agent" ? n.agent : n.args;
    const tool: PlanNode = {
      id: "a",
      type: "tool",
      tool: "t",
      args: { x: 1 },
      depends_on: [],
      store_as: "a",
      retry: { max_attempts: 1, backoff_seconds: 0 },
    };
    expect(own(tool)).toEqual({ x: 1 });
  });
});
