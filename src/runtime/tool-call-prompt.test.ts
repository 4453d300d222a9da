import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../tools/tool-spec.js";
import { canonicalJson } from "./canonical-json.js";
import { buildPrompt, inputChars } from "./tool-call-prompt.js";

const tools: ToolSpec[] = [
  {
    name: "ignore_alert",
    description: "Ignore a noisy alert",
    parameters: { type: "object", properties: { reason: { type: "string" } } },
  },
  { name: "page", description: "Page the on-call", parameters: { type: "object", properties: {} } },
];

describe("buildPrompt", () => {
  it("puts the tools in the system part and only the task and facts in the user part", () => {
    const { system, user } = buildPrompt({
      instruction: "Triage: disk full",
      facts: { severity: "high", env: "prod" },
      tools,
    });
    expect(system).toContain('{"name":"ignore_alert","description":"Ignore a noisy alert"');
    expect(system).toContain('{"name": null}');
    // The decline is listed last, in the same shape as a tool, so the model weighs it like one.
    expect(system.split("\n").at(-1)).toMatch(/^\{"name":null,"description":"None of the other tools/);
    expect(system).not.toContain("disk full");
    expect(user).toBe('Task: Triage: disk full\nFacts: {"env":"prod","severity":"high"}');
  });

  it("keeps the system part identical across proposals with the same tools (cacheable prefix)", () => {
    const a = buildPrompt({ instruction: "one", facts: { a: 1 }, tools });
    const b = buildPrompt({ instruction: "two", facts: { b: 2 }, tools: tools.map((t) => ({ ...t })) });
    expect(a.system).toBe(b.system);
    expect(a.user).not.toBe(b.user);
  });

  it("is deterministic in the order of fact keys, at every depth", () => {
    const a = buildPrompt({ instruction: "x", facts: { b: { y: 1, x: [{ d: 1, c: 2 }] }, a: 0 }, tools });
    const b = buildPrompt({ instruction: "x", facts: { a: 0, b: { x: [{ c: 2, d: 1 }], y: 1 } }, tools });
    expect(a.user).toBe(b.user);
    expect(buildPrompt({ instruction: "x", facts: {}, tools }).user).toBe("Task: x");
  });
});

describe("inputChars", () => {
  it("is the instruction length plus the sorted facts JSON length", () => {
    expect(inputChars("abc", { b: 1, a: "z" })).toBe(3 + '{"a":"z","b":1}'.length);
    expect(inputChars("", {})).toBe(2);
    expect(canonicalJson({ b: 1, a: [3, { d: 1, c: 0 }] })).toBe('{"a":[3,{"c":0,"d":1}],"b":1}');
  });
});
