import { jsonSchema, tool, type ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toTool, type ToolContext } from "./define-tool.js";
import { fromAiSdkTool, fromAiSdkTools } from "./from-ai-sdk-tool.js";
import { toTools } from "./to-tools.js";
import { ToolRegistry } from "./tool-registry.js";

const ctx = (): ToolContext => ({
  signal: new AbortController().signal,
  idempotencyKey: "run/node",
  runId: "run",
  nodeId: "node",
  attempt: 1,
});

const weather = tool({
  description: "Weather in a city",
  inputSchema: z.object({ city: z.string(), unit: z.enum(["C", "F"]).default("C") }),
  execute: async ({ city, unit }) => ({ city, unit, temp: 21 }),
});

const echo = tool({
  description: "Echoes its text",
  inputSchema: jsonSchema<{ text: string }>({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  }),
  execute: ({ text }) => text,
});

describe("AI SDK tools as deputy tools", () => {
  it("names a ToolSet's tools by their keys, with plain JSON Schema (no $schema) from zod and jsonSchema()", () => {
    const [w, e] = toTools({ get_weather: weather, echo } satisfies ToolSet);
    expect(w).toMatchObject({ name: "get_weather", description: "Weather in a city", delegateSafe: false });
    expect(w!.parameters).toMatchObject({ type: "object", required: ["city"], additionalProperties: false });
    expect(w!.parameters).not.toHaveProperty("$schema");
    expect(e!.parameters).toEqual({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    });
  });

  it("runs sync and async execute; zod defaults apply as the AI SDK applies them", async () => {
    const [w, e] = toTools({ get_weather: weather, echo });
    expect(await w!.run({ city: "Lisbon" }, ctx())).toEqual({ city: "Lisbon", unit: "C", temp: 21 });
    expect(e!.run({ text: "hi" }, ctx())).toBe("hi");
  });

  it("passes the call's signal and idempotency key to execute as abortSignal and toolCallId", async () => {
    let seen: { toolCallId: string; abortSignal?: AbortSignal; context: unknown } | undefined;
    const spy = fromAiSdkTool(
      "spy",
      tool({
        description: "Spy",
        inputSchema: jsonSchema({ type: "object" }),
        execute: (_input, options) => ((seen = options), "ok"),
      }),
      { context: { tenant: "t1" } },
    );
    const call = ctx();
    expect(await spy.run({}, call)).toBe("ok");
    expect(seen).toMatchObject({
      toolCallId: "run/node",
      abortSignal: call.signal,
      context: { tenant: "t1" },
    });
  });

  it("gives a streamed execute's last value as the result", async () => {
    const progress = fromAiSdkTool(
      "progress",
      tool({
        description: "Counts to three, reporting each step",
        inputSchema: z.object({}),
        async *execute() {
          yield { status: "working", done: 1 };
          yield { status: "working", done: 2 };
          yield { status: "done", done: 3 };
        },
      }),
    );
    expect(await progress.run({}, ctx())).toEqual({ status: "done", done: 3 });
  });

  it("fails arguments that the tool's own schema refuses as TOOL_ARGS_INVALID", async () => {
    const [w] = toTools({ get_weather: weather });
    await expect(w!.run({ city: 3 }, ctx())).rejects.toMatchObject({
      code: "TOOL_ARGS_INVALID",
      tool: "get_weather",
    });
  });

  it("is not delegate-safe unless the host says so, per tool or for all", () => {
    const set = { get_weather: weather, echo };
    expect(fromAiSdkTools(set).map((t) => t.delegateSafe)).toEqual([false, false]);
    expect(fromAiSdkTools(set, { delegateSafe: ["echo"] }).map((t) => t.delegateSafe)).toEqual([false, true]);
    expect(fromAiSdkTools(set, { delegateSafe: true }).map((t) => t.delegateSafe)).toEqual([true, true]);
    expect(fromAiSdkTool("w", weather, { delegateSafe: true }).delegateSafe).toBe(true);
    expect(() => fromAiSdkTools(set, { delegateSafe: ["ech"] })).toThrow(
      'Expected `delegateSafe` to be names of tools in the set (get_weather, echo), got "ech".',
    );
  });

  it("takes a record of deputy tools (their own names) and AI SDK tools side by side", () => {
    const lookup = defineTool({ name: "lookup_user", description: "Find", input: {}, run: () => null });
    const registry = new ToolRegistry({ lookup, get_weather: weather });
    expect(registry.names()).toEqual(["lookup_user", "get_weather"]);
  });
});

describe("what is not a tool", () => {
  const deputyOrAiSdk =
    "a deputy tool (`name`, `description`, `input`, `run`: see defineTool) or an AI SDK tool (`inputSchema`, `execute`: see `tool()` from `ai`)";

  it("fails with one message naming both shapes and where it was", () => {
    expect(() => toTools({ lookup: { foo: 1 } } as never)).toThrow(
      `Expected \`tools.lookup\` to be ${deputyOrAiSdk}, got an object.`,
    );
    expect(() => toTools([42] as never)).toThrow(`Expected \`tools[0]\` to be ${deputyOrAiSdk}, got 42.`);
    expect(() => toTools(7 as never)).toThrow(
      /Expected `tools` to be a list of tools, or a record of tools by name/,
    );
    expect(() => toTool("x")).toThrow(`Expected \`tool\` to be ${deputyOrAiSdk}, got "x".`);
  });

  it("says that one tool is not a list or a record of them", () => {
    expect(() => toTools(weather as never)).toThrow(
      /Expected `tools` to be a list of tools or a record of tools by name, not one tool/,
    );
    const lookup = defineTool({ name: "lookup_user", description: "Find", input: {}, run: () => null });
    expect(() => new ToolRegistry(lookup as never)).toThrow(/not one tool/);
  });

  it("says how to name an AI SDK tool given in a list", () => {
    expect(() => toTools([weather] as never)).toThrow(
      /Expected `tools\[0\]` to be a named tool: an AI SDK tool has no name of its own, so pass it in a record keyed by its name/,
    );
    expect(() => new ToolRegistry([weather] as never)).toThrow(
      /fromAiSdkTool\("lookup_user", tool\(\{ \.\.\. \}\)\)/,
    );
  });

  it("names what an AI SDK tool lacks: execute, inputSchema, a runnable kind", () => {
    expect(() => toTools({ t: { description: "d", inputSchema: z.object({}) } as never })).toThrow(
      "Expected `tools.t.execute` to be a function (deputy calls the tool itself), got undefined.",
    );
    expect(() => toTools({ t: { description: "d", execute: () => 1 } as never })).toThrow(
      /Expected `tools\.t\.inputSchema` to be a zod schema, a Standard Schema or jsonSchema/,
    );
    const providerTool = {
      type: "provider",
      id: "x.search",
      args: {},
      inputSchema: z.object({}),
      execute: () => 1,
    };
    expect(() => toTools({ t: providerTool as never })).toThrow(
      /an AI SDK provider tool runs at its provider/,
    );
    const later = tool({
      description: "d",
      inputSchema: jsonSchema(Promise.resolve({ type: "object" })),
      execute: () => 1,
    });
    expect(() => toTools({ later })).toThrow(/a schema whose JSON Schema is known at once/);
  });

  it("is a type error at compile time", () => {
    // @ts-expect-error -- not a tool of either shape
    expect(() => toTools([{ foo: 1 }])).toThrow();
    // @ts-expect-error -- a record value that is not a tool
    expect(() => new ToolRegistry({ lookup: 42 })).toThrow();
    // @ts-expect-error -- an AI SDK tool has no name, so a list cannot hold it
    expect(() => toTools([weather])).toThrow();
  });
});
