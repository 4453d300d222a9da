import { describe, expect, it } from "vitest";
import { capStrings, isSecretKey, REDACTED, Redactor } from "./redact.js";
import type { DelegateTrace } from "./trace.js";

describe("isSecretKey", () => {
  it.each([
    "password",
    "db_password",
    "apiKey",
    "X-Api-Key",
    "api_key",
    "Authorization",
    "cookie",
    "Set-Cookie",
    "client_secret",
    "accessToken",
    "refresh_token",
    "privateKey",
    "session_id",
    "credentials",
  ])("%s is secret", (key) => expect(isSecretKey(key)).toBe(true));
  it.each(["max_tokens", "tokens", "keyboard", "key", "author", "passenger", "session", "monkey"])(
    "%s is not",
    (key) => expect(isSecretKey(key)).toBe(false),
  );
});

const trace = (over: Partial<DelegateTrace> = {}): DelegateTrace => ({
  runId: "r",
  nodeId: "n",
  instruction: "Log in as bob with hunter2-secret and header Bearer abc.def.ghi",
  facts: { user: "bob", auth: { password: "hunter2-secret" }, note: "key sk-abcdefghijklmnopqrstu" },
  tools: [
    {
      name: "login",
      description: "d",
      parameters: { type: "object", properties: { password: { type: "string" }, pin: { type: "string" } } },
      sensitive: ["pin"],
    },
  ],
  proposal: {
    name: "login",
    arguments: { user: "bob", pin: "4242", password: "hunter2-secret" },
    confidence: 1,
    backend: "b",
    latencyMs: 1,
    raw: '{"pin":"4242"}',
  },
  verdict: "accepted",
  finalCall: { name: "login", arguments: { user: "bob", pin: "4242", password: "hunter2-secret" } },
  backend: "b",
  latencyMs: 1,
  time: "t",
  ...over,
});

describe("Redactor.redactTrace", () => {
  it("redacts secret keys, sensitive arguments, credential values and copies of redacted values", () => {
    const out = new Redactor().redactTrace(trace());
    expect(out.facts).toEqual({ user: "bob", auth: { password: REDACTED }, note: `key ${REDACTED}` });
    expect(out.proposal!.arguments).toEqual({ user: "bob", pin: REDACTED, password: REDACTED });
    expect(out.finalCall!.arguments).toEqual({ user: "bob", pin: REDACTED, password: REDACTED });
    expect(out.proposal!.raw).toBe(`{"pin":"${REDACTED}"}`);
    expect(out.instruction).toBe(`Log in as bob with ${REDACTED} and header Bearer ${REDACTED}`);
    // Schemas are not secrets.
    expect(out.tools).toEqual(trace().tools);
    expect(JSON.stringify(out)).not.toMatch(/hunter2|4242|abc\.def|sk-abc/);
  });

  it("applies user rules and can be turned down", () => {
    const r = new Redactor({
      secretKeys: false,
      sensitiveArguments: false,
      secretValues: false,
      rules: [{ key: "user" }, { value: /bob/g }],
    });
    const out = r.redactTrace(trace());
    expect(out.facts.user).toBe(REDACTED);
    expect((out.facts.auth as Record<string, unknown>).password).toBe("hunter2-secret");
    expect(out.proposal!.arguments.pin).toBe("4242");
    expect(out.instruction).toContain(`as ${REDACTED} with`);
  });
});

describe("capStrings", () => {
  it("cuts every long string and says how much was cut", () => {
    expect(capStrings({ a: "x".repeat(10), b: ["yyyy"], c: 5 }, 4)).toEqual({
      a: "xxxx…[+6 chars]",
      b: ["yyyy"],
      c: 5,
    });
  });
});
