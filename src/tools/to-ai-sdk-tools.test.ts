import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { toAiSdkTools } from "./to-ai-sdk-tools.js";
import { ToolRegistry } from "./tool-registry.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A model that calls `toolName` with `input` once, then answers. */
function callingModel(toolName: string, input: object) {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
}

const calls: { email: string; idempotencyKey: string; nodeId: string }[] = [];
const lookup = defineTool({
  name: "lookup_user",
  description: "Find a user by e-mail",
  input: z.object({ email: z.string().email() }),
  delegateSafe: true,
  run: ({ email }, { idempotencyKey, nodeId }) => {
    calls.push({ email, idempotencyKey, nodeId });
    return { id: 7, email };
  },
});

describe("toAiSdkTools", () => {
  it("hands deputy tools to generateText: the mock model calls one and gets its result", async () => {
    calls.length = 0;
    const model = callingModel("lookup_user", { email: "ada@example.com" });
    const tools = toAiSdkTools([lookup]);
    expect(Object.keys(tools)).toEqual(["lookup_user"]);
    const result = await generateText({ model, tools, prompt: "Who is ada?", stopWhen: isStepCount(2) });
    expect(result.text).toBe("done");
    expect(calls).toEqual([{ email: "ada@example.com", idempotencyKey: "call-1", nodeId: "lookup_user" }]);
    expect(result.steps[0]!.toolResults).toMatchObject([
      { toolName: "lookup_user", output: { id: 7, email: "ada@example.com" } },
    ]);
    // The model saw the tool's JSON Schema.
    const offered = model.doGenerateCalls[0]!.tools as { name: string; inputSchema: object }[];
    expect(offered).toMatchObject([{ name: "lookup_user", inputSchema: { required: ["email"] } }]);
  });

  it("checks a model's arguments with deputy's validator: bad ones never reach the tool", async () => {
    calls.length = 0;
    const model = callingModel("lookup_user", { email: "not an e-mail", extra: 1 });
    const result = await generateText({
      model,
      tools: toAiSdkTools(new ToolRegistry([lookup])),
      prompt: "Who?",
      stopWhen: isStepCount(2),
    });
    expect(calls).toEqual([]);
    const error = result.steps[0]!.content.find((p) => p.type === "tool-error");
    expect(String((error as { error: unknown }).error)).toMatch(/do not fit its schema/);
  });
});
