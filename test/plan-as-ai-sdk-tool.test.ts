/**
 * docs/tools.md's plan as an AI SDK tool, as written there: a plan built with `plan()`, wrapped in one deputy tool
 * (its `inputs` in, its `returns` artifact out), handed to the real `generateText` through `toAiSdkTools`.
 */
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, plan, runPlan } from "../src/index.js";
import { toAiSdkTools } from "../src/tools/to-ai-sdk-tools.js";

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

const lookupUser = defineTool({
  name: "lookup_user",
  description: "Find a user by e-mail",
  input: z.object({ email: z.string() }),
  run: ({ email }) =>
    email === "ada@example.com" ? { id: 7, email } : Promise.reject(new Error("no such user")),
});

const greet = plan("greet_user", {
  inputs: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
  returns: "user",
})
  .tool("find", { tool: "lookup_user", args: { email: "{inputs.email}" }, store_as: "user" })
  .build();

let runs = 0;
const greetUser = defineTool({
  name: "greet_user",
  description: "Look a user up by e-mail (a deputy plan)",
  input: greet.inputs!,
  run: async (inputs, { signal }) => {
    runs++;
    const manifest = await runPlan(greet, { tools: [lookupUser], inputs, signal });
    if (manifest.status !== "completed") return { status: manifest.status, runId: manifest.runId };
    return manifest.artifacts[greet.returns!];
  },
});

describe("a plan handed to generateText as one tool", () => {
  it("runs with the model's arguments as its inputs and answers with the artifact it returns", async () => {
    const model = callingModel("greet_user", { email: "ada@example.com" });
    const { steps } = await generateText({
      model,
      tools: toAiSdkTools([greetUser]),
      prompt: "Who is ada@example.com?",
      stopWhen: isStepCount(3),
    });
    expect(steps[0]!.toolResults).toMatchObject([
      { toolName: "greet_user", output: { id: 7, email: "ada@example.com" } },
    ]);
    // The model was offered the plan's declared inputs as the tool's schema.
    const offered = model.doGenerateCalls[0]!.tools as { name: string; inputSchema: object }[];
    expect(offered).toMatchObject([{ name: "greet_user", inputSchema: { required: ["email"] } }]);
  });

  it("a run that does not complete is an answer the model sees, with the run id", async () => {
    const model = callingModel("greet_user", { email: "bob@example.com" });
    const { steps } = await generateText({
      model,
      tools: toAiSdkTools([greetUser]),
      prompt: "Bob?",
      stopWhen: isStepCount(3),
    });
    expect(steps[0]!.toolResults).toMatchObject([{ toolName: "greet_user", output: { status: "failed" } }]);
    expect((steps[0]!.toolResults[0]!.output as { runId: string }).runId).toMatch(/\S/);
  });

  it("arguments outside the plan's inputs never start a run", async () => {
    runs = 0;
    const model = callingModel("greet_user", { mail: "ada@example.com" });
    const { steps } = await generateText({
      model,
      tools: toAiSdkTools([greetUser]),
      prompt: "Ada?",
      stopWhen: isStepCount(3),
    });
    expect(steps[0]!.toolResults).toEqual([]);
    expect(steps[0]!.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "tool-error", toolName: "greet_user" })]),
    );
    expect(runs).toBe(0);
  });
});
