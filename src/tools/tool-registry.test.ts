import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toTool } from "./define-tool.js";
import { ToolRegistry } from "./tool-registry.js";

const lookup = defineTool({
  name: "lookup_user",
  description: "Find a user",
  input: z.object({ email: z.string(), token: z.string() }),
  sensitive: ["token"],
  run: ({ email }) => ({ email }),
});

describe("tools", () => {
  it("defineTool turns a zod input into JSON Schema and keeps flags and sensitive keys", () => {
    expect(lookup.parameters).toMatchObject({ type: "object", required: ["email", "token"] });
    expect(lookup.delegateSafe).toBe(false);
    expect(lookup.sensitive).toEqual(["token"]);
    const marked = toTool({
      name: "pay",
      description: "Pay",
      input: { type: "object", properties: { card: { type: "string", "x-sensitive": true } } },
      delegateSafe: true,
      run: () => null,
    });
    expect(marked).toMatchObject({ delegateSafe: true, sensitive: ["card"] });
    expect(Object.isFrozen(marked)).toBe(true);
  });

  it("rejects a bad definition with the field that is wrong", () => {
    const run = () => null;
    expect(() => toTool({ name: "bad name", description: "d", input: {}, run })).toThrow(/tool\.name/);
    expect(() => toTool({ name: "t", description: " ", input: {}, run })).toThrow(/tool\.description/);
    expect(() => toTool({ name: "t", description: "d", input: {} })).toThrow(/tool\.run/);
    expect(() => toTool({ name: "t", description: "d", run })).toThrow(/tool\.input/);
    expect(() => toTool(null)).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });

  it("the registry finds by name, refuses duplicates and suggests the closest name", () => {
    const registry = new ToolRegistry([
      lookup,
      { name: "list_users", description: "List", input: {}, run: () => [] },
    ]);
    expect(registry.names()).toEqual(["lookup_user", "list_users"]);
    expect(registry.find("lookup_user")?.name).toBe("lookup_user");
    expect(registry.find("nope")).toBeUndefined();
    expect(() => registry.register(lookup)).toThrow(expect.objectContaining({ code: "TOOL_DUPLICATE" }));
    expect(() => registry.get("lookup_usr")).toThrow('Did you mean "lookup_user"?');
    expect(() => registry.get("zzz")).toThrow(expect.objectContaining({ code: "TOOL_NOT_FOUND" }));
  });

  it("runs a registered tool with the definition as `this`", async () => {
    const counter = {
      name: "count",
      description: "Count",
      input: {},
      n: 0,
      run() {
        return ++this.n;
      },
    };
    const tool = new ToolRegistry([counter]).get("count");
    const ctx = {
      signal: new AbortController().signal,
      idempotencyKey: "k",
      runId: "r",
      nodeId: "n",
      attempt: 1,
    };
    expect(await tool.run({}, ctx)).toBe(1);
    expect(counter.n).toBe(1);
  });
});

describe("ToolRegistry.unknownHint", () => {
  const named = (name: string) => ({ name, description: name, input: { type: "object" }, run: () => null });
  it("suggests a plausible typo, else lists the tools there are (ten, then how many more)", () => {
    const few = new ToolRegistry([lookup, named("read_text_file"), named("list_directory")]);
    expect(few.unknownHint("lookup_usr")).toBe(' (did you mean "lookup_user"?)');
    expect(few.unknownHint("send_email")).toBe(
      ' (the tools given: "lookup_user", "read_text_file", "list_directory")',
    );
    const many = new ToolRegistry(
      Array.from({ length: 13 }, (_, i) => named(`tool_${String.fromCharCode(97 + i)}x${i}`)),
    );
    expect(many.unknownHint("send_email")).toMatch(
      /^ \(the tools given: "tool_ax0", .*"tool_jx9" and 3 more\)$/,
    );
    expect(new ToolRegistry([]).unknownHint("anything")).toBe(" (no tools were given)");
  });
});
