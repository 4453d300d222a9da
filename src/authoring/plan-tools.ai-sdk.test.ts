/**
 * The plan toolkit in the real `ai` package's `generateText` loop (its own mock model, `ai/test`), through
 * `toAiSdkTools`: the tools run, a slow run answers before it ends, a refusal is a tool result the loop goes
 * on with, and arguments outside a tool's strict schema never reach it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4CallOptions, LanguageModelV4Content } from "@ai-sdk/provider";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { planTools } from "../compose/index.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { toAiSdkTools } from "../tools/to-ai-sdk-tools.js";

const store = new SqliteRunStore(join(mkdtempSync(join(tmpdir(), "deputy-plan-tools-ai-")), "runs.db"));
afterAll(() => store.close());

let release: () => void = () => {};
const gate = new Promise<void>((r) => (release = r));
const echo = defineTool({
  name: "echo",
  description: "Say something",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: ({ text }: { text: string }) => ({ said: text }),
});
const slow = defineTool({
  name: "slow",
  description: "Wait for the test",
  input: { type: "object", properties: {} },
  run: async () => (await gate, "slept"),
});
const plans = {
  greet: {
    name: "greet",
    inputs: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
    nodes: [{ id: "say", tool: "echo", args: { text: "hello {inputs.who}" }, store_as: "said" }],
  },
  slow: { name: "slow", nodes: [{ id: "wait", tool: "slow", args: {}, store_as: "waited" }] },
};

type Call = { toolName: string; input: unknown };

/** The AI SDK's mock model, answering each step with the calls `script` makes of the last tool results. */
function scripted(script: ((results: any[]) => Call | string)[]) {
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options: LanguageModelV4CallOptions) => {
      const step = script[n++]!(lastResults(options));
      const content: LanguageModelV4Content[] =
        typeof step === "string"
          ? [{ type: "text", text: step }]
          : [
              {
                type: "tool-call",
                toolCallId: `c${n}`,
                toolName: step.toolName,
                input: JSON.stringify(step.input),
              },
            ];
      return {
        content,
        finishReason: { unified: typeof step === "string" ? "stop" : "tool-calls", raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 5, text: 5, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

function lastResults(options: LanguageModelV4CallOptions): any[] {
  const last = options.prompt.at(-1);
  if (last?.role !== "tool") return [];
  return last.content.flatMap((p) =>
    p.type === "tool-result"
      ? [p.output.type === "json" || p.output.type === "text" ? p.output.value : p.output]
      : [],
  );
}

describe("planTools in the AI SDK's generateText", () => {
  it("answers with the run id before a slow run ends, and plan_status reads how it ended", async () => {
    const toolkit = planTools({ tools: [slow], store, plans, softTimeout: 0.05 });
    const result = await generateText({
      model: scripted([
        () => ({ toolName: "plan_execute", input: { name: "slow" } }),
        () => (release(), "started"),
      ]),
      tools: toAiSdkTools(toolkit.tools),
      stopWhen: isStepCount(4),
      prompt: "Wait",
    });
    const [answer] = result.steps.flatMap((s) => s.toolResults.map((r) => r.output as any));
    expect(answer).toMatchObject({ status: "running", done: false, run_id: expect.any(String) });
    expect(result.text).toBe("started");
    await toolkit.settle();
    const later = await toolkit.tools
      .find((t) => t.name === "plan_status")!
      .run(
        { run_id: answer.run_id },
        { signal: new AbortController().signal, idempotencyKey: "x", runId: "x", nodeId: "x", attempt: 1 },
      );
    expect(later).toMatchObject({ status: "completed", done: true, nodes: { wait: { status: "ok" } } });
  });

  it("runs a named plan, returns refusals as tool results, and stops arguments outside the strict schema", async () => {
    const toolkit = planTools({ tools: [echo], store, plans });
    const result = await generateText({
      model: scripted([
        () => ({ toolName: "plan_execute", input: { name: "greet", inputs: { who: "ada" } } }),
        () => ({ toolName: "plan_status", input: { run_id: "no-such-run" } }),
        () => ({ toolName: "plan_execute", input: { name: "greet", inputs: {} } }),
        () => ({ toolName: "plan_status", input: { run_id: "x", sneaky: true } }),
        () => "sorry",
      ]),
      tools: toAiSdkTools(toolkit.tools),
      stopWhen: isStepCount(8),
      prompt: "Try",
    });
    const parts = result.steps.flatMap((s) =>
      s.content.filter((p) => p.type === "tool-result" || p.type === "tool-error"),
    );
    expect(parts.map((p) => p.type)).toEqual(["tool-result", "tool-result", "tool-result", "tool-error"]);
    const [greeted, notFound, missing, sneaky] = parts as any[];
    expect(greeted.output).toMatchObject({ status: "completed", nodes: { say: { status: "ok" } } });
    expect(notFound.output).toMatchObject({ error: "run_not_found" });
    expect(missing.output).toMatchObject({
      error: "invalid_inputs",
      problems: ['missing input "who" (string)'],
    });
    // The SDK reports the bad arguments to the model as an invalid-input error; the loop went on to its answer.
    expect(String(sneaky.error)).toMatch(/additional properties|sneaky/i);
    expect(result.text).toBe("sorry");
  });
});
