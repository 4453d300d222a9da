import { describe, expect, it } from "vitest";
import { readRunOptions, runOptionsRecord } from "./run-options-record.js";

describe("the run options record", () => {
  it("is written with its version, the starter's facts and what the engine sets", () => {
    expect(
      runOptionsRecord(
        { tools: "/t.mjs", delegates: ["scripted:p.jsonl"], extra: { team: "ops" } },
        { inputs: { q: 1 }, distributed: true },
      ),
    ).toEqual({
      version: 1,
      tools: "/t.mjs",
      delegates: ["scripted:p.jsonl"],
      inputs: { q: 1 },
      distributed: true,
      extra: { team: "ops" },
    });
    expect(runOptionsRecord(undefined, { distributed: false })).toEqual({ version: 1 });
  });

  it("keeps an untyped caller's other keys under extra, never at the top", () => {
    const facts = { tools: "/t.mjs", owner: "me" } as unknown as Parameters<typeof runOptionsRecord>[0];
    expect(runOptionsRecord(facts, {})).toEqual({ version: 1, tools: "/t.mjs", extra: { owner: "me" } });
  });

  it("reads an unversioned record as version 1, and leaves out fields of the wrong type", () => {
    expect(
      readRunOptions({ tools: "/t.mjs", traces: 3, delegates: ["a", 1], distributed: "yes", x: 1 }),
    ).toEqual({ version: 1, tools: "/t.mjs", extra: { x: 1 } });
    for (const junk of [null, undefined, "text", 1, []]) expect(readRunOptions(junk)).toEqual({ version: 1 });
  });

  it("reads a later version for the fields it knows", () => {
    expect(readRunOptions({ version: 2, tools: "/t.mjs", newField: true, extra: { a: 1 } })).toEqual({
      version: 1,
      tools: "/t.mjs",
      extra: { a: 1 },
    });
  });

  it("keeps an authored run's approval, field by field; an unreadable one is no approval", () => {
    const authored = { objective: "o", model: "m" };
    const approved = {
      status: "approved",
      tools: ["post"],
      how: "tty",
      at: "2026-12-03T00:00:00.000Z",
      by: "ada",
    };
    expect(readRunOptions({ version: 1, authored: { ...authored, approval: approved } }).authored).toEqual({
      ...authored,
      approval: approved,
    });
    expect(
      readRunOptions({
        version: 1,
        authored: { ...authored, approval: { status: "pending", tools: ["post", 1] } },
      }).authored,
    ).toEqual({ ...authored, approval: { status: "pending", tools: ["post"] } });
    for (const approval of [{ status: "approved", how: "model", at: "x" }, { status: "yes" }, "approved"])
      expect(readRunOptions({ version: 1, authored: { ...authored, approval } }).authored).toEqual(authored);
  });

  it("never reads a field through the prototype", () => {
    const stored = JSON.parse('{"__proto__": {"tools": "/evil.mjs"}}') as unknown;
    expect(readRunOptions(stored)).toEqual({ version: 1 });
  });

  it("keeps the tool sources, the run's directory and the engine's tool definitions", () => {
    const digest = { description: "a".repeat(16), input: "b".repeat(16), annotations: "c".repeat(16) };
    const facts = {
      tools: "/t.mjs",
      toolSources: ["/t.mjs", "mcp:stdio:node fs.js /data"],
      cwd: "/work",
      // Only the engine says what the plan was validated against.
      toolDefinitions: { forged: digest },
    } as unknown as Parameters<typeof runOptionsRecord>[0];
    expect(runOptionsRecord(facts, { toolDefinitions: { read_file: digest } })).toEqual({
      version: 1,
      tools: "/t.mjs",
      toolSources: ["/t.mjs", "mcp:stdio:node fs.js /data"],
      cwd: "/work",
      toolDefinitions: { read_file: digest },
    });
    expect(readRunOptions({ version: 1, toolDefinitions: { x: { ...digest, input: 3 } } })).toEqual({
      version: 1,
    });
    expect(readRunOptions({ version: 1, toolSources: ["a", 2] })).toEqual({ version: 1 });
  });
});
