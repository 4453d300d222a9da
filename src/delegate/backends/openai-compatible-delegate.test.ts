import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DelegateBackendError } from "../../errors/index.js";
import { buildProposalSchema } from "../proposal-schema.js";
import type { ToolSpec } from "../protocol.js";
import { OpenAICompatibleDelegate, textChoiceConfidence } from "./openai-compatible-delegate.js";

const tools: ToolSpec[] = [
  {
    name: "get_weather",
    description: "Weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
  { name: "get_time", description: "Time", parameters: { type: "object", properties: {} } },
];

/** A stand-in for a hosted OpenAI-compatible API (outside the project), answering per test. */
let answer: (body: any, req: IncomingMessage, res: ServerResponse) => void;
const seen: { body: any; auth: string | undefined }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const body = JSON.parse(text);
      seen.push({ body, auth: req.headers.authorization });
      answer(body, req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address() as { port: number };
  baseUrl = `http://127.0.0.1:${address.port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

/** Logprobs of `{"name":"get_weather",…}` as byte-ish tokens, with alternatives at the decision point. */
function logprobsFor(content: string) {
  const tokens = ['{"', "name", '":', '"get', "_weather", '",', '"arguments":{}}'];
  expect(tokens.join("")).toBe(content);
  return tokens.map((token, i) => ({
    token,
    logprob: Math.log(i === 3 ? 0.6 : 1),
    top_logprobs:
      i === 3
        ? [
            { token: '"get', logprob: Math.log(0.6) },
            { token: "null", logprob: Math.log(0.2) },
            { token: "xyz", logprob: Math.log(0.2) },
          ]
        : i === 4
          ? [
              { token: "_weather", logprob: Math.log(0.75) },
              { token: "_time", logprob: Math.log(0.25) },
            ]
          : [{ token, logprob: 0 }],
  }));
}

describe("OpenAICompatibleDelegate", () => {
  it("sends the proposal schema as response_format and the key only as a bearer header", async () => {
    process.env.DEPUTY_TEST_KEY = "sk-secret-123";
    const content = '{"name":"get_weather","arguments":{}}';
    answer = (_b, _q, res) =>
      reply(res, 200, {
        choices: [{ message: { content }, logprobs: { content: logprobsFor(content) } }],
        usage: { prompt_tokens: 50, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 32 } },
      });
    const delegate = new OpenAICompatibleDelegate({ baseUrl, model: "tiny", apiKeyEnv: "DEPUTY_TEST_KEY" });
    const proposal = await delegate.propose({ instruction: "weather in Paris", facts: {}, tools });
    const last = seen.at(-1)!;
    expect(last.auth).toBe("Bearer sk-secret-123");
    expect(last.body.model).toBe("tiny");
    expect(last.body.response_format.json_schema.schema).toEqual(buildProposalSchema(tools));
    expect(last.body.logprobs).toBe(true);
    expect(proposal).toMatchObject({ name: "get_weather", arguments: {}, backend: "openai" });
    expect(proposal.usage).toEqual({ inputTokens: 50, outputTokens: 7, cachedInputTokens: 32 });
    // 0.6 / (0.6 + 0.2) at the decision ("xyz" fits no candidate), then 0.75 / (0.75 + 0.25).
    expect(proposal.confidence).toBeCloseTo(0.75 * 0.75, 12);
    expect(JSON.stringify(proposal)).not.toContain("sk-secret");
  });

  it("sends worked examples as prior exchanges between the tools' system part and the task", async () => {
    const content = '{"name":"get_time","arguments":{}}';
    answer = (_b, _q, res) => reply(res, 200, { choices: [{ message: { content } }] });
    const delegate = new OpenAICompatibleDelegate({ baseUrl, confidence: false });
    await delegate.propose({
      instruction: "time in Oslo",
      facts: {},
      tools,
      examples: [
        { instruction: "time in Rome", facts: {}, call: { name: "get_time", arguments: {} } },
        { instruction: "jump", facts: { how: "high" }, call: { name: null, arguments: {} } },
      ],
    });
    const messages = seen.at(-1)!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    // The most similar example (given first) stands next to the task.
    expect(messages.slice(1).map((m) => m.content)).toEqual([
      'Task: jump\nFacts: {"how":"high"}',
      '{"name":null,"arguments":{}}',
      "Task: time in Rome",
      '{"name":"get_time","arguments":{}}',
      "Task: time in Oslo",
    ]);
  });

  it("gives null confidence when the server returns no logprobs", async () => {
    answer = (_b, _q, res) => reply(res, 200, { choices: [{ message: { content: '{"name":null}' } }] });
    const delegate = new OpenAICompatibleDelegate({ baseUrl, confidence: false });
    const proposal = await delegate.propose({ instruction: "x", facts: {}, tools });
    expect(seen.at(-1)!.body.logprobs).toBeUndefined();
    expect(proposal).toMatchObject({ name: null, arguments: {}, confidence: null });
  });

  it("turns HTTP errors into DelegateBackendErrors without leaking the key", async () => {
    process.env.DEPUTY_TEST_KEY = "sk-secret-456";
    answer = (_b, _q, res) => reply(res, 401, { error: { message: "bad key" } });
    const delegate = new OpenAICompatibleDelegate({ baseUrl, apiKeyEnv: "DEPUTY_TEST_KEY" });
    const error = await delegate.propose({ instruction: "x", facts: {}, tools }).catch((e: unknown) => e);
    expect(DelegateBackendError.isInstance(error)).toBe(true);
    expect((error as DelegateBackendError).code).toBe("DELEGATE_HTTP");
    expect(JSON.stringify((error as DelegateBackendError).toJSON())).not.toContain("sk-secret");
    expect((error as Error).message).not.toContain("sk-secret");
  });

  it("aborts at its timeout and reports unparseable answers", async () => {
    answer = () => undefined; // never answers
    const slow = new OpenAICompatibleDelegate({ baseUrl, timeoutMs: 50, retries: 0 });
    const timedOut = await slow.propose({ instruction: "x", facts: {}, tools }).catch((e: unknown) => e);
    expect((timedOut as DelegateBackendError).code).toBe("DELEGATE_TIMEOUT");
    answer = (_b, _q, res) => reply(res, 200, { choices: [{ message: { content: "not json" } }] });
    const bad = await new OpenAICompatibleDelegate({ baseUrl })
      .propose({ instruction: "x", facts: {}, tools })
      .catch((e: unknown) => e);
    expect((bad as DelegateBackendError).raw).toBe("not json");
  });

  it("close() is idempotent and refuses later proposals", async () => {
    const delegate = new OpenAICompatibleDelegate({ baseUrl });
    await delegate.close();
    await delegate.close();
    await expect(delegate.propose({ instruction: "x", facts: {}, tools })).rejects.toThrow(/closed/);
  });

  it("validates its options", () => {
    expect(() => new OpenAICompatibleDelegate({ baseUrl: "localhost:1" })).toThrow(/Expected `baseUrl`/);
    expect(() => new OpenAICompatibleDelegate({ baseUrl, timeoutMs: 0 })).toThrow(/Expected `timeoutMs`/);
  });
});

describe("textChoiceConfidence", () => {
  it("stops once the chosen name is unambiguous and returns null when logprobs do not line up", () => {
    const content = '{"name":"get_weather","arguments":{}}';
    expect(
      textChoiceConfidence(content, logprobsFor(content), ["get_weather", "get_time"], "get_weather"),
    ).toBeCloseTo(0.5625, 12);
    expect(textChoiceConfidence('{"arguments":{}}', [], ["a"], "a")).toBeNull();
  });
});
