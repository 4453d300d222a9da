import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaServerDelegate } from "../../src/delegate/backends/llama-server-delegate.js";
import { OpenAICompatibleDelegate } from "../../src/delegate/backends/openai-compatible-delegate.js";
import { acceptGate } from "../../src/delegate/accept-gate.js";
import { DelegateBackendError } from "../../src/errors/index.js";
import {
  findLlamaServerBinary,
  startLlamaServer,
  writeTinyModel,
  type LlamaServerProcess,
} from "../../src/testing/index.js";
import { freePort } from "../../src/testing/llama-server.js";
import { buildSuiteCases, delegateBackendSuite } from "../delegate-backend-suite.js";

// CI builds the binary first (`bash scripts/llama-server.sh`); a missing binary is a failure, never a skip.
const binary = findLlamaServerBinary();
if (!binary) {
  throw new Error(
    "llama-server binary not found: run `bash scripts/llama-server.sh` first (or set DEPUTY_LLAMA_SERVER).",
  );
}

const dir = mkdtempSync(join(tmpdir(), "deputy-llama-server-"));
const model = join(dir, "tiny.gguf");
writeTinyModel(model, { seed: 1 });
let server: LlamaServerProcess;

beforeAll(async () => {
  server = await startLlamaServer({ model, parallel: 2 });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

delegateBackendSuite({
  name: "LlamaServerDelegate (tiny model)",
  create: () => new LlamaServerDelegate({ baseUrl: server.baseUrl, timeoutMs: 60_000 }),
  // Grammar-constrained; the tiny random model still runs out of tokens now and then. Measured: 20 of 200.
  maxBackendErrorShare: 0.15,
});

delegateBackendSuite({
  name: "OpenAICompatibleDelegate (llama-server's /v1, tiny model)",
  create: () =>
    new OpenAICompatibleDelegate({ baseUrl: `${server.baseUrl}/v1`, name: "openai", timeoutMs: 60_000 }),
  // response_format json_schema: llama-server constrains the answer with a grammar. Measured: 10 of 200.
  maxBackendErrorShare: 0.1,
});

describe("LlamaServerDelegate against a real llama-server", () => {
  it("confidence is the chosen candidate's share of a distribution over the candidates that sums to 1", async () => {
    const distributions: Map<string | null, number>[] = [];
    const delegate = new LlamaServerDelegate({
      baseUrl: server.baseUrl,
      topLogprobs: 300, // the whole tiny vocabulary: exact
      confidenceMethod: "choice",
      _internal: { onChoiceDistribution: (d) => distributions.push(d) },
    });
    for (const c of buildSuiteCases(6, 5)) {
      const proposal = await delegate.propose(c.request);
      const d = distributions.at(-1)!;
      expect([...d.keys()].sort()).toEqual([...c.request.tools.map((t) => t.name), null].sort());
      expect([...d.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      expect(proposal.confidence).toBeCloseTo(d.get(proposal.name)!, 12);
      // Without the hook only the chosen path is scored: the same number.
      const plain = await new LlamaServerDelegate({
        baseUrl: server.baseUrl,
        topLogprobs: 300,
        confidenceMethod: "choice",
      }).propose(c.request);
      expect(plain.confidence).toBeCloseTo(proposal.confidence!, 5); // separate requests: batch-dependent float noise
    }
    await delegate.close();
  }, 120_000);

  it("answer confidence (the default) is a probability read from the completion itself", async () => {
    const delegate = new LlamaServerDelegate({ baseUrl: server.baseUrl });
    for (const c of buildSuiteCases(3, 3)) {
      const proposal = await delegate.propose(c.request);
      expect(proposal.confidence).not.toBeNull();
      expect(proposal.confidence).toBeGreaterThan(0);
      expect(proposal.confidence).toBeLessThanOrEqual(1);
    }
    await delegate.close();
  }, 120_000);

  it("gives null confidence with confidence: false, which min_confidence turns into unscored", async () => {
    const delegate = new LlamaServerDelegate({ baseUrl: server.baseUrl, confidence: false });
    const [c] = buildSuiteCases(1, 5);
    const proposal = await delegate.propose(c!.request);
    expect(proposal.confidence).toBeNull();
    const gate = acceptGate({
      proposal,
      candidates: c!.request.tools.map((t) => t.name),
      findTool: (name) => c!.tools.get(name),
      allowSideEffects: { node: true, host: true },
      minConfidence: 0.5,
    });
    expect(["unscored", "invalid_args", "declined"]).toContain(gate.verdict);
  }, 60_000);

  it("reports connection refused as a DelegateBackendError after its retries", async () => {
    const port = await freePort();
    const delegate = new LlamaServerDelegate({ baseUrl: `http://127.0.0.1:${port}`, retries: 1 });
    const error = await delegate.propose(buildSuiteCases(1, 5)[0]!.request).catch((e: unknown) => e);
    expect(DelegateBackendError.isInstance(error)).toBe(true);
    expect((error as DelegateBackendError).code).toBe("DELEGATE_CONNECTION");
    expect(String((error as Error).message)).toContain("ECONNREFUSED");
  });

  it("reports an HTTP error with its status", async () => {
    const delegate = new LlamaServerDelegate({ baseUrl: `${server.baseUrl}/no-such-prefix` });
    const error = await delegate.propose(buildSuiteCases(1, 5)[0]!.request).catch((e: unknown) => e);
    expect((error as DelegateBackendError).code).toBe("DELEGATE_HTTP");
    expect(String((error as Error).message)).toMatch(/HTTP 404/);
  });

  it("ends in a backend error, not a hang, when the server is killed mid-request", async () => {
    const own = await startLlamaServer({ model });
    const delegate = new LlamaServerDelegate({ baseUrl: own.baseUrl, retries: 1, timeoutMs: 30_000 });
    const [c] = buildSuiteCases(1, 5);
    const pending = delegate.propose(c!.request).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    own.kill("SIGKILL");
    expect(await own.exited).toBe("SIGKILL");
    const result = await pending;
    // The proposal may have finished in the 20 ms; then the next one must fail.
    const error = DelegateBackendError.isInstance(result)
      ? result
      : await delegate.propose(c!.request).catch((e: unknown) => e);
    expect(DelegateBackendError.isInstance(error)).toBe(true);
    const gate = acceptGate({
      proposal: undefined,
      backendError: error,
      candidates: c!.request.tools.map((t) => t.name),
      findTool: (name) => c!.tools.get(name),
      allowSideEffects: { node: true, host: true },
    });
    expect(gate.verdict).toBe("backend_error");
    await own.stop();
  }, 60_000);

  it("stop() ends the server and is idempotent", async () => {
    const own = await startLlamaServer({ model });
    const health = await fetch(`${own.baseUrl}/health`);
    expect(health.ok).toBe(true);
    await own.stop();
    await own.stop();
    await expect(fetch(`${own.baseUrl}/health`)).rejects.toThrow();
  }, 60_000);

  it("serves an OpenAI-style tool call with tool_choice required (what agents use)", async () => {
    const res = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        messages: [{ role: "user", content: "Weather in Paris?" }],
        tools: [
          {
            type: "function",
            function: {
              name: "get_weather",
              description: "Weather for a city",
              parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            },
          },
        ],
        tool_choice: "required",
        parallel_tool_calls: false,
        max_tokens: 300,
        temperature: 0,
      }),
    });
    const body = (await res.json()) as {
      choices: {
        finish_reason: string;
        message: { tool_calls?: { function: { name: string; arguments: string } }[] };
      }[];
    };
    const choice = body.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls).toHaveLength(1);
    expect(choice.message.tool_calls![0]!.function.name).toBe("get_weather");
    expect(typeof JSON.parse(choice.message.tool_calls![0]!.function.arguments).city).toBe("string");
  }, 60_000);
});
