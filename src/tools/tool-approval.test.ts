import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { defineTool } from "./define-tool.js";
import { fromAiSdkTool, fromAiSdkTools } from "./from-ai-sdk-tool.js";
import { toAiSdkTools } from "./to-ai-sdk-tools.js";
import { approvalReason, isApprovedCall, mayNeedApproval } from "./tool-approval.js";

const ctx = {
  signal: new AbortController().signal,
  idempotencyKey: "run/send",
  runId: "run",
  nodeId: "send",
};
const input = z.object({ to: z.string(), amount: z.number().default(10) });

describe("needsApproval: which calls wait for a person", () => {
  it("defineTool: true asks for every call, false and absent for none", async () => {
    const always = defineTool({ name: "pay", description: "pay", input, needsApproval: true, run: () => 1 });
    const never = defineTool({ name: "pay2", description: "pay", input, needsApproval: false, run: () => 1 });
    const plain = defineTool({ name: "pay3", description: "pay", input, run: () => 1 });
    expect(await approvalReason(always, { to: "a" }, ctx)).toMatch(
      /"pay" requires approval before every call/,
    );
    expect(await approvalReason(never, { to: "a" }, ctx)).toBeUndefined();
    expect(await approvalReason(plain, { to: "a" }, ctx)).toBeUndefined();
    expect([mayNeedApproval(always), mayNeedApproval(never), mayNeedApproval(plain)]).toEqual([
      true,
      false,
      false,
    ]);
    expect(never).not.toHaveProperty("needsApproval");
  });

  it("defineTool: the function form is asked with this call's arguments and run context", async () => {
    const seen: unknown[] = [];
    const pay = defineTool({
      name: "pay",
      description: "pay",
      input,
      needsApproval: (args: { amount: number }, c) => (seen.push(c.idempotencyKey), args.amount > 100),
      run: () => 1,
    });
    expect(await approvalReason(pay, { to: "a", amount: 5 }, ctx)).toBeUndefined();
    expect(await approvalReason(pay, { to: "a", amount: 500 }, ctx)).toMatch(/for these arguments/);
    expect(seen).toEqual(["run/send", "run/send"]);
  });

  it("a plan's node can add an approval, never waive the tool's", async () => {
    const plain = defineTool({ name: "t", description: "t", input, run: () => 1 });
    expect(await approvalReason(plain, { to: "a" }, ctx, true)).toMatch(/plan's node requires approval/);
    expect(mayNeedApproval(plain, true)).toBe(true);
  });

  it("a needsApproval function that throws or answers something else than true", async () => {
    const broken = defineTool({
      name: "t",
      description: "t",
      input,
      needsApproval: () => {
        throw new Error("db down");
      },
      run: () => 1,
    });
    expect(await approvalReason(broken, { to: "a" }, ctx)).toMatch(/check failed \(db down\)/);
    const truthy = defineTool({
      name: "u",
      description: "u",
      input,
      needsApproval: (() => "yes") as never,
      run: () => 1,
    });
    expect(await approvalReason(truthy, { to: "a" }, ctx)).toBeUndefined();
  });

  it("refuses a needsApproval that is neither a boolean nor a function", () => {
    expect(() =>
      defineTool({ name: "t", description: "t", input, needsApproval: "always" as never, run: () => 1 }),
    ).toThrow(InvalidOptionError);
  });

  it("AI SDK tool(): the boolean form maps as it is", async () => {
    const send = tool({
      description: "send",
      inputSchema: input,
      needsApproval: true,
      execute: () => "sent",
    });
    const read = tool({
      description: "read",
      inputSchema: input,
      needsApproval: false,
      execute: () => "read",
    });
    const [s, r] = fromAiSdkTools({ send, read });
    expect(s!.needsApproval).toBe(true);
    expect(r!.needsApproval).toBeUndefined();
    expect(await approvalReason(s!, { to: "a" }, ctx)).toMatch(/requires approval before every call/);
    expect(await approvalReason(r!, { to: "a" }, ctx)).toBeUndefined();
  });

  it("AI SDK tool(): the function form gets the input as execute would (schema defaults applied) and the AI SDK's options", async () => {
    const calls: { input: unknown; options: unknown }[] = [];
    const send = tool({
      description: "send",
      inputSchema: input,
      needsApproval: async (i, options) => {
        calls.push({ input: i, options });
        return i.amount > 100;
      },
      execute: () => "sent",
    });
    const t = fromAiSdkTool("send", send);
    expect(await approvalReason(t, { to: "a" }, ctx)).toBeUndefined();
    expect(await approvalReason(t, { to: "a", amount: 101 }, ctx)).toMatch(/for these arguments/);
    expect(calls[0]).toEqual({
      input: { to: "a", amount: 10 },
      options: { toolCallId: "run/send", messages: [], context: {} },
    });
  });

  it("an approved call is the call now: equal key for key, or shown with redacted values and the same tool", () => {
    const now = { name: "pay", arguments: { to: "a", n: [1, { b: 2 }] } };
    expect(isApprovedCall({ name: "pay", arguments: { n: [1, { b: 2 }], to: "a" } }, now, "[R]")).toBe(true);
    expect(isApprovedCall({ name: "pay", arguments: { to: "b", n: [1, { b: 2 }] } }, now, "[R]")).toBe(false);
    expect(isApprovedCall({ name: "pay", arguments: { to: "a" } }, now, "[R]")).toBe(false);
    expect(isApprovedCall({ name: "pay", arguments: { to: "[R]" } }, now, "[R]")).toBe(true);
    expect(isApprovedCall({ name: "pay2", arguments: { to: "[R]" } }, now, "[R]")).toBe(false);
    expect(isApprovedCall(undefined, now, "[R]")).toBe(false);
  });
});

describe("toAiSdkTools carries needsApproval to the AI SDK", () => {
  it("a boolean as it is, a function asked with the call's input", async () => {
    const set = toAiSdkTools([
      defineTool({ name: "a", description: "a", input, needsApproval: true, run: () => 1 }),
      defineTool({
        name: "b",
        description: "b",
        input,
        needsApproval: ({ amount }) => amount > 100,
        run: () => 1,
      }),
      defineTool({ name: "c", description: "c", input, run: () => 1 }),
    ]);
    expect(set.a!.needsApproval).toBe(true);
    expect(set.c!.needsApproval).toBeUndefined();
    const ask = set.b!.needsApproval as (i: unknown, o: unknown) => Promise<boolean>;
    const options = { toolCallId: "c1", messages: [], context: {} };
    expect([
      await ask({ to: "x", amount: 5 }, options),
      await ask({ to: "x", amount: 500 }, options),
    ]).toEqual([false, true]);
  });
});
