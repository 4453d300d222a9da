// Compile-time guarantees of typed plans: `npx tsc -p tsconfig.json --noEmit` (npm run typecheck) checks this
// file, and every `@ts-expect-error` line must be an error — a line that compiles fails the typecheck. The
// tests at the end check that what compiles also builds what it says.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  createHost,
  delegateToPlan,
  plan,
  runPlan,
  type PlanInput,
  type PlanNodeInput,
} from "../compose/index.js";
import { defineNodeType } from "../plan/node-type.js";
import { defineTool } from "../tools/define-tool.js";
import { validatePlan } from "../plan/validate-plan.js";

const echo = defineTool({
  name: "echo",
  description: "Answers with its value",
  input: z.object({ value: z.unknown() }),
  run: ({ value }) => value,
});
const waitNodeType = defineNodeType({
  name: "wait",
  fields: { seconds: z.number().min(0), label: z.string().default("") },
  executor: { execute: async (node) => ({ status: "ok", value: { waited: node.seconds } }) },
});
const host = createHost({ tools: [echo] });

// Types only: never called, so nothing runs.
function typeChecks() {
  // A plan written as an object: defaults optional, nodes discriminated by `type`, `tool` implicit.
  const written = {
    name: "typed",
    nodes: [
      { id: "a", tool: "echo", args: { value: 1 }, store_as: "a" },
      { id: "b", type: "delegate", instruction: "Pick", tools: ["echo"], store_as: "b", depends_on: ["a"] },
      { id: "c", type: "agent", agent: "helper", store_as: "c", retry: { max_attempts: 2 } },
    ],
  } satisfies PlanInput;
  void runPlan(written, { tools: [echo] });
  validatePlan(written, host);

  // @ts-expect-error a misspelt engine field (depends_on)
  void runPlan(
    { name: "p", nodes: [{ id: "a", tool: "echo", store_as: "a", depend_on: [] }] },
    { tools: [echo] },
  );
  // @ts-expect-error a misspelt delegate field (instruction)
  void runPlan(
    { name: "p", nodes: [{ id: "a", type: "delegate", instructions: "x", tools: ["t"], store_as: "a" }] },
    {
      tools: [echo],
    },
  );
  // @ts-expect-error a misspelt plan field (objective)
  validatePlan({ name: "p", objectiv: "x", nodes: [{ id: "a", tool: "echo", store_as: "a" }] }, host);
  // @ts-expect-error a delegate's field on a node without `type` (a tool node)
  const mixed: PlanNodeInput = { id: "a", tool: "echo", store_as: "a", instruction: "x" };
  const badReject: PlanNodeInput = {
    id: "a",
    type: "delegate",
    instruction: "x",
    tools: ["t"],
    store_as: "a",
    // @ts-expect-error an on_reject that is not one of fail, retry_backend, escalate
    on_reject: "ask",
  };
  // @ts-expect-error a node type that is not registered
  const unknownType: PlanNodeInput = { id: "a", type: "wait", seconds: 1, store_as: "a" };
  // Registered through the type parameter (as runPlan's `nodeTypes` does), it is a node like the others.
  const wait: PlanNodeInput<typeof waitNodeType> = { id: "a", type: "wait", seconds: 1, store_as: "a" };
  // @ts-expect-error a custom type's field with the wrong type
  const badWait: PlanNodeInput<typeof waitNodeType> = { id: "a", type: "wait", seconds: "1", store_as: "a" };
  void runPlan({ name: "p", nodes: [wait] }, { tools: [echo], nodeTypes: [waitNodeType] });
  // @ts-expect-error a wait node without `nodeTypes: [waitNodeType]`
  void runPlan(
    { name: "p", nodes: [{ id: "a", type: "wait", seconds: 1, store_as: "a" }] },
    { tools: [echo] },
  );

  // delegateToPlan takes a plan as runPlan does.
  const asTool = { name: "run_written", tools: [echo] };
  // @ts-expect-error a misspelt field in a plan handed to delegateToPlan (returns)
  delegateToPlan({ name: "p", return: "a", nodes: [{ id: "a", tool: "echo", store_as: "a" }] }, asTool);
  void (() => delegateToPlan(written, asTool));

  // Plans only known at run time are taken as they are (and validated when they run).
  const parsed: unknown = JSON.parse("{}");
  void runPlan(parsed, { tools: [echo] });
  void runPlan(JSON.parse("{}"), { tools: [echo] });
  validatePlan(parsed, host);
  const record: Record<string, unknown> = {};
  validatePlan(record, host);
  // …and so is a plan built in a variable whose `type`s widened to string: its types say nothing to check.
  const widened = {
    name: "w",
    nodes: [{ id: "a", type: "delegate", instruction: "x", tools: ["t"], store_as: "a" }],
  };
  void runPlan(widened, { tools: [echo] });
  // @ts-expect-error a number is no plan
  void runPlan(42, { tools: [echo] });

  // The builder: one method per node type, each node's fields checked.
  const built = plan("built", { metadata: { max_parallel_tasks: 2 } })
    .tool("a", { tool: "echo", args: { value: 1 }, store_as: "a" })
    .delegate("b", { instruction: "Pick", tools: ["echo"], store_as: "b", on_reject: "escalate" })
    .agent("c", { agent: "helper", input: { q: "{artifacts.a}" }, store_as: "c" })
    .build();
  expectTypeOf(built).toEqualTypeOf<PlanInput>();
  void runPlan(built, { tools: [echo] });
  // @ts-expect-error a misspelt tool field (store_as)
  plan("p").tool("a", { tool: "echo", stor_as: "a" });
  // @ts-expect-error a delegate field on a tool node
  plan("p").tool("a", { tool: "echo", store_as: "a", instruction: "x" });
  // @ts-expect-error `id` is the method's argument, not a field
  plan("p").tool("a", { id: "a", tool: "echo", store_as: "a" });
  plan("p").tool("a", {
    tool: "echo",
    store_as: "a_{index}",
    // @ts-expect-error a misspelt for_each field (max_concurrency)
    for_each: { source: "{artifacts.x}", max_concurency: 2 },
  });
  // @ts-expect-error no method for a type that is not registered
  plan("p").wait("a", { seconds: 1, store_as: "a" });
  // @ts-expect-error a misspelt plan option (objective)
  plan("p", { objectiv: "x" });
  const withWait = plan("p", { nodeTypes: [waitNodeType] })
    .wait("pause", { seconds: 1, store_as: "paused" })
    .node("wait", "again", { seconds: 2, store_as: "again" })
    .build();
  expectTypeOf(withWait).toEqualTypeOf<PlanInput<typeof waitNodeType>>();
  // @ts-expect-error a custom type's field with the wrong type, through the builder
  plan("p", { nodeTypes: [waitNodeType] }).wait("pause", { seconds: "1", store_as: "paused" });
  void runPlan(withWait, { tools: [echo], nodeTypes: [waitNodeType] });

  return [mixed, badReject, unknownType, badWait];
}

describe("typed plans", () => {
  it("compile as above (this file is in the typecheck), and the builder builds the plan it types", () => {
    expect(typeof typeChecks).toBe("function");
    const built = plan("p", { nodeTypes: [waitNodeType] })
      .wait("pause", { seconds: 1, store_as: "paused" })
      .build();
    expect(built).toEqual({
      name: "p",
      nodes: [{ id: "pause", type: "wait", seconds: 1, store_as: "paused" }],
    });
  });
});
