/**
 * One real tool loop against llama-server (the tiny random-weight model, through the openai-compatible
 * provider). It checks the plumbing — requests, tool results, usage, budget refusal — not answer quality.
 *
 * A random-weight model calls a tool only when forced: `tool_choice: "required"` makes llama-server (`--jinja`)
 * constrain the turn to the template's tool-call grammar, and the tiny model is steered to open the turn with
 * its single-token `<tool_call>` marker (llama.cpp's grammar would otherwise allow free text before the call);
 * `parallel_tool_calls: false` ends the turn after one call. Every step is forced, because grammar-constrained
 * output is ASCII JSON, while free text from random weights can end mid-way through a UTF-8 sequence (llama-server
 * then answers HTTP 500). Enum-only arguments and a declared output keep every answer short and parseable.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DELEGATION_CHANNEL,
  defineAgent,
  delegateTo,
  delegation,
  type DelegationEvent,
} from "../../src/agents/index.js";
import {
  findLlamaServerBinary,
  startLlamaServer,
  writeTinyModel,
  type LlamaServerProcess,
} from "../../src/testing/index.js";

// `npm test` builds the binary first (`bash scripts/llama-server.sh`); a missing binary is a failure, never a skip.
const binary = findLlamaServerBinary();
if (!binary) {
  throw new Error(
    "llama-server binary not found: run `bash scripts/llama-server.sh` first (or set DEPUTY_LLAMA_SERVER).",
  );
}

describe("agents on llama-server (tiny model, openai-compatible provider)", () => {
  let dir = "";
  let server: LlamaServerProcess | undefined;
  const requests: { url: string; body: any }[] = [];
  /** Records every request body the provider sends, then sends it for real. */
  const recordingFetch: typeof fetch = async (input, init) => {
    requests.push({
      url: String(input),
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    });
    return fetch(input, init);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "deputy-agents-"));
    const model = join(dir, "tiny.gguf");
    writeTinyModel(model, { seed: 1 });
    server = await startLlamaServer({ model });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs a delegation through real requests, feeds the tool result back, counts usage and refuses over budget", async () => {
    const backend = {
      provider: "openai-compatible",
      baseURL: `${server!.baseUrl}/v1`,
      model: "tiny",
      fetch: recordingFetch,
      temperature: 0,
      seed: 1,
    };
    const lookup = defineAgent({
      name: "Lookup",
      // Free text from random weights can end mid-way through a UTF-8 sequence, which llama-server refuses to
      // parse; a declared output is grammar-constrained JSON, so the sub-agent's answer always parses.
      backend: { ...backend, maxOutputTokens: 256 },
      delegations: [
        delegation("lookup", {
          description: "Look up the help-centre article for a topic",
          input: z.object({ topic: z.enum(["billing", "bug"]).describe("The ticket's topic") }),
          returns: z.object({ article: z.enum(["refunds", "bug-reports"]) }),
        }),
      ],
      actions: { lookup: ({ topic }: { topic: string }) => `Article about ${topic}` },
    });
    const planner = defineAgent({
      name: "Planner",
      backend: {
        ...backend,
        maxOutputTokens: 400,
        // A llama-server request field, passed through by the openai-compatible provider: one call per turn.
        providerOptions: { "openai-compatible": { parallel_tool_calls: false } },
      },
      budget: { maxCalls: 4 },
      delegateTo: [delegateTo(lookup, { budget: { maxCalls: 1 } })],
      actions: {
        plan: ({ ticket }: { ticket: string }) => ({
          prompt: ticket,
          // Force a tool call on every step: grammar-constrained output is ASCII JSON, where free text from
          // random weights may end mid-way through a UTF-8 sequence (llama-server then answers HTTP 500).
          toolChoice: "required",
          maxSteps: 3,
        }),
      },
    });
    const events: DelegationEvent[] = [];
    const onEvent = (m: unknown) => events.push(m as DelegationEvent);
    subscribe(DELEGATION_CHANNEL, onEvent);
    let r;
    try {
      r = await planner.run("plan", { ticket: "I was charged twice." });
    } finally {
      unsubscribe(DELEGATION_CHANNEL, onEvent);
    }

    // Requests: the planner's first request offers the delegated tool, forced.
    const chat = requests.filter((q) => q.url.endsWith("/chat/completions"));
    const first = chat[0]!.body;
    expect(first.tool_choice).toBe("required");
    expect(first.parallel_tool_calls).toBe(false);
    expect(first.tools).toEqual([
      {
        type: "function",
        function: {
          name: "lookup",
          description: "Look up the help-centre article for a topic",
          parameters: {
            type: "object",
            properties: {
              topic: { type: "string", enum: ["billing", "bug"], description: "The ticket's topic" },
            },
            required: ["topic"],
            additionalProperties: false,
          },
        },
      },
    ]);

    // Tool calls: every call the loop made was to `lookup` with a valid topic; the first ran the sub-agent.
    const calls = r.steps.flatMap((s) =>
      s.toolCalls.map((c, i) => ({ call: c, output: s.toolResults[i]!.output })),
    );
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const { call } of calls) {
      expect(call.toolName).toBe("lookup");
      expect(["billing", "bug"]).toContain((call.input as { topic: string }).topic);
    }
    expect(calls[0]!.output).toEqual({ article: expect.stringMatching(/^(refunds|bug-reports)$/) });
    const subRequest = chat.find((q) =>
      q.body.messages?.some((m: any) => m.role === "user" && /^Article about (billing|bug)$/.test(m.content)),
    );
    expect(subRequest).toBeDefined();
    expect(subRequest!.body.max_tokens).toBe(256);
    expect(subRequest!.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "lookup_result" },
    });

    // Tool results: the sub-agent's answer went back to the planner as a tool message.
    const followUp = chat.find((q) => q.body.messages?.some((m: any) => m.role === "tool"))!.body;
    const toolMessage = followUp.messages.find((m: any) => m.role === "tool");
    expect(toolMessage.tool_call_id).toBe(r.steps[0]!.toolCalls[0]!.toolCallId);
    expect(JSON.parse(toolMessage.content)).toEqual(calls[0]!.output);

    // Budget refusal: every later call was refused with the budget_exceeded answer, and not recorded.
    for (const { output } of calls.slice(1)) {
      expect(output).toMatchObject({ error: "budget_exceeded", limit: "max_calls", allowed: 1, used: 1 });
    }
    expect(r.ledgers.lookup!.calls).toBe(1);
    expect(r.ledger.calls).toBe(1);

    // Usage: real token counts from the server, summed per step and rolled into the ledger.
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.totalTokens).toBe(r.steps.reduce((n, s) => n + s.usage.totalTokens, 0));
    expect(r.ledgers.lookup!.tokens).toBeGreaterThan(0);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: "ok", model: "tiny", delegate: "Lookup", tool: "lookup" });
    expect(events[0]!.usage.totalTokens).toBe(r.ledgers.lookup!.tokens);
    expect(r.steps).toHaveLength(3);
    expect(r.finishReason).toBe("max-steps");
  }, 180_000);
});
