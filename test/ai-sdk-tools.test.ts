/**
 * AI SDK tools where a user puts them (issue 25, item 1): a `ToolSet` in a plan's `tools`, in an agent's and an
 * action's `tools`, and as a CLI tools module's `tools` export, all against the real `ai` package.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { jsonSchema, tool, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { main } from "../src/cli/main.js";
import { defineAgent } from "../src/agents/define-agent.js";
import { ScriptedDelegate } from "../src/delegate/scripted-delegate.js";
import { runPlan } from "../src/index.js";
import { fromAiSdkTools } from "../src/tools/from-ai-sdk-tool.js";

const sent: string[] = [];
const tools = {
  get_weather: tool({
    description: "Weather in a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temp: city === "Lisbon" ? 21 : 9 }),
  }),
  forecast: tool({
    description: "Hourly forecast, streamed as it is computed",
    inputSchema: jsonSchema<{ city: string; hours: number }>({
      type: "object",
      properties: { city: { type: "string" }, hours: { type: "integer" } },
      required: ["city", "hours"],
    }),
    async *execute({ city, hours }) {
      for (let h = 1; h <= hours; h++) yield { city, hours: h, done: h === hours };
    },
  }),
  send_email: tool({
    description: "Send an e-mail",
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    execute: ({ to }) => (sent.push(to), { sent: true }),
  }),
} satisfies ToolSet;

describe("a ToolSet in a plan", () => {
  it("runs AI SDK tools (async and streamed execute) from tool nodes, named by the set's keys", async () => {
    const m = await runPlan(
      {
        name: "weather",
        nodes: [
          { id: "now", tool: "get_weather", args: { city: "Lisbon" }, store_as: "now" },
          { id: "later", tool: "forecast", args: { city: "Oslo", hours: 3 }, store_as: "later" },
        ],
      },
      { tools },
    );
    expect(m.status).toBe("completed");
    expect(m.artifacts).toEqual({
      now: { city: "Lisbon", temp: 21 },
      later: { city: "Oslo", hours: 3, done: true },
    });
  });

  const delegated = {
    name: "notify",
    nodes: [
      {
        id: "d",
        type: "delegate",
        instruction: "Tell ops the weather",
        tools: ["send_email"],
        store_as: "d",
      },
    ],
  };
  const proposal = () =>
    new ScriptedDelegate({
      entries: [{ node: "d", proposal: { name: "send_email", arguments: { to: "ops", body: "21" } } }],
    });

  it("keeps an AI SDK tool from a delegate until the host says it is delegate-safe", async () => {
    sent.length = 0;
    const denied = await runPlan(delegated, { tools, delegates: [proposal()] });
    expect(denied.status).toBe("failed");
    expect(JSON.stringify(denied.nodes.d)).toContain("side_effect_denied");
    expect(sent).toEqual([]);
    const safe = fromAiSdkTools(tools, { delegateSafe: ["send_email"] });
    const allowed = await runPlan(delegated, { tools: safe, delegates: [proposal()] });
    expect(allowed.status).toBe("completed");
    expect(sent).toEqual(["ops"]);
  });
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const callsThenAnswers = (toolName: string, input: object) =>
  new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId: "1", toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "Done." }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });

describe("a ToolSet in an agent", () => {
  it("offers the set's tools to the model and runs the one it calls", async () => {
    const model = callsThenAnswers("forecast", { city: "Oslo", hours: 2 });
    const agent = defineAgent({
      name: "Weather",
      backend: model,
      tools: { get_weather: tools.get_weather, forecast: tools.forecast },
      actions: { ask: (q: string) => q },
    });
    const r = await agent.run("ask", "Forecast for Oslo?");
    expect(r.text).toBe("Done.");
    expect(r.steps[0]!.toolResults[0]!.output).toEqual({ city: "Oslo", hours: 2, done: true });
    expect(model.doGenerateCalls[0]!.tools!.map((t) => t.name)).toEqual(["get_weather", "forecast"]);
  });

  it("takes a ToolSet as an action's tools too", async () => {
    const agent = defineAgent({
      name: "Mailer",
      backend: callsThenAnswers("send_email", { to: "ada", body: "hi" }),
      actions: { mail: () => ({ prompt: "Mail ada", tools: { send_email: tools.send_email } }) },
    });
    sent.length = 0;
    await agent.run("mail", undefined);
    expect(sent).toEqual(["ada"]);
  });

  it("names what it expected when a tool is neither shape", () => {
    expect(() =>
      defineAgent({
        name: "Broken",
        backend: callsThenAnswers("x", {}),
        tools: { x: { describe: "not a tool" } } as never,
        actions: { a: () => "" },
      }),
    ).toThrow(
      "Expected `Broken.tools.x` to be a deputy tool (`name`, `description`, `input`, `run`: see defineTool) or an AI SDK tool (`inputSchema`, `execute`: see `tool()` from `ai`), got an object.",
    );
    expect(() =>
      defineAgent({
        name: "Broken",
        backend: callsThenAnswers("x", {}),
        tools: { search: { description: "Search", inputSchema: z.object({}) } as never },
        actions: { a: () => "" },
      }),
    ).toThrow(
      "Expected `Broken.tools.search.execute` to be a function (deputy calls the tool itself), got undefined.",
    );
  });
});

describe("a tools module exporting a ToolSet, loaded by the CLI", () => {
  it("runs a plan whose tools are the module's AI SDK tools", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-ai-sdk-"));
    const ai = pathToFileURL(createRequire(import.meta.url).resolve("ai")).href;
    writeFileSync(
      join(dir, "tools.mjs"),
      `import { jsonSchema, tool } from ${JSON.stringify(ai)};
export const tools = {
  shout: tool({
    description: "Upper-cases its text",
    inputSchema: jsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
    execute: async ({ text }) => text.toUpperCase(),
  }),
};`,
    );
    writeFileSync(
      join(dir, "plan.json"),
      JSON.stringify({
        name: "shout",
        nodes: [{ id: "a", tool: "shout", args: { text: "hi" }, store_as: "a" }],
      }),
    );
    let stdout = "";
    let stderr = "";
    const args = ["run", join(dir, "plan.json"), "--tools", join(dir, "tools.mjs"), "--no-store", "--json"];
    const code = await main(args, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      isTTY: false,
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "completed", artifacts: { a: "HI" } });
  });
});
