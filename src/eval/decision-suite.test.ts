import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { tracesToChat } from "../traces/trace-export.js";
import type { DelegateTrace } from "../traces/trace.js";
import { readDecisionSuite, suiteFormat } from "./decision-suite.js";
import { DECISIONS } from "./decisions.fixture.js";
import { evaluateChain } from "./evaluate-chain.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-decision-suite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(lines: unknown[]): string {
  const path = join(dir, `suite-${n++}.jsonl`);
  writeFileSync(path, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  return path;
}

/** The one-line error a bad suite gives, or undefined when it reads. */
function issueOf(path: string): string | undefined {
  try {
    suiteFormat(path);
    readDecisionSuite(path);
    return undefined;
  } catch (error) {
    if (!InvalidOptionError.isInstance(error)) throw error;
    return error.message;
  }
}

describe("decision suites", () => {
  it("tells decision records from BFCL cases, per file", () => {
    expect(suiteFormat(file(DECISIONS))).toBe("decisions");
    expect(suiteFormat(file([{ id: "simple_0", question: [[]], function: [] }]))).toBe("bfcl");
    expect(suiteFormat(join(process.cwd(), "examples/alert-triage/data/escalations.jsonl"))).toBe(
      "decisions",
    );
  });

  it("reads what deputy traces export writes (chat examples) as the same decisions", () => {
    const { examples } = tracesToChat(DECISIONS as unknown as DelegateTrace[]);
    const chat = readDecisionSuite(file(examples), { node: "triage" });
    const traces = readDecisionSuite(file(DECISIONS));
    const accepted = traces.cases.filter((c) => c.call.name !== null);
    expect(
      chat.cases.map(({ instruction, facts, tools, call }) => ({ instruction, facts, tools, call })),
    ).toEqual(accepted.map(({ instruction, facts, tools, call }) => ({ instruction, facts, tools, call })));
    expect(chat.cases[0]!.nodeId).toBe("triage");
  });

  it("reads the example's decision files", () => {
    const suite = readDecisionSuite(join(process.cwd(), "examples/alert-triage/data/escalations.jsonl"));
    expect(suite.cases.length).toBe(90);
    expect(suite.cases.every((c) => c.tools.length === 3 && c.nodeId === "triage_items")).toBe(true);
  });

  it("keeps only the node asked for, and the first --limit decisions", () => {
    const other = { ...DECISIONS[0]!, nodeId: "other", instruction: "elsewhere" };
    const suite = readDecisionSuite(file([...DECISIONS, other]), { node: "triage", limit: 4 });
    expect(suite.cases).toHaveLength(4);
    expect(suite.skipped.otherNode).toBe(1);
  });

  it("says in one line which line and field are wrong", () => {
    expect(issueOf(file([{ outcome: "proposed", correct: true }]))).toMatch(
      /suite-\d+\.jsonl:1`.*decision record/,
    );
    expect(issueOf(file([DECISIONS[0], "not json"]))).toMatch(/:2`/);
    expect(issueOf(file([DECISIONS[0], { ...DECISIONS[1], tools: "page" }]))).toMatch(/:2 tools`/);
    expect(issueOf(file([{ ...DECISIONS[0], facts: [1] }]))).toMatch(/:1 facts` to be an object/);
    expect(issueOf(file([{ ...DECISIONS[0], finalCall: { name: 3 } }]))).toMatch(/finalCall\.name/);
    // a call that names no tool (no model could propose it, no model file may hold it)
    expect(issueOf(file([{ ...DECISIONS[0], finalCall: { name: "", arguments: {} } }]))).toMatch(
      /finalCall\.name/,
    );
    expect(issueOf(file([DECISIONS[0], { id: "x", question: [], function: [] }]))).toMatch(/:2`.*BFCL case/);
    const badSchema = [{ name: "t", description: "", parameters: { type: "no-such-type" } }];
    expect(issueOf(file([{ ...DECISIONS[0], tools: badSchema }]))).toMatch(/tools\[0\]\.parameters/);
    expect(
      issueOf(
        file([
          {
            messages: [
              { role: "system", content: "hi" },
              { role: "user", content: "Task: x" },
              { role: "assistant", content: "{}" },
            ],
          },
        ]),
      ),
    ).toMatch(/Tools:/);
  });

  it("a folder mixing decisions and BFCL cases is refused", () => {
    const mixed = join(dir, "mixed");
    mkdirSync(mixed);
    writeFileSync(join(mixed, "a.jsonl"), JSON.stringify(DECISIONS[0]) + "\n");
    writeFileSync(
      join(mixed, "b_simple.jsonl"),
      JSON.stringify({ id: "x", question: [], function: [] }) + "\n",
    );
    expect(() => suiteFormat(mixed)).toThrow(/one format/);
  });

  it("never crashes on hostile records: it reads and evaluates them or names one issue in one line", async () => {
    const DEEP = "<deep>";
    const value = fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.constant("x".repeat(200_000)),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
      fc.constant({ type: "object", properties: { a: { type: "bogus" } } }),
      fc.constant(DEEP),
    );
    const fields = ["instruction", "facts", "tools", "verdict", "finalCall", "nodeId", "source", "messages"];
    const hostile = fc.record({
      base: fc.constantFrom(...DECISIONS),
      drop: fc.subarray(fields),
      set: fc.dictionary(fc.constantFrom(...fields, "question", "function", "__proto__"), value, {
        maxKeys: 3,
      }),
      tool: fc.option(fc.record({ name: value, description: value, parameters: value }), { nil: undefined }),
    });
    const proposal = fc.record({
      name: fc.oneof(fc.constantFrom("page", "ticket", null), fc.string({ maxLength: 5 })),
      arguments: fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 3 }),
      confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(null)),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 4 }), proposal, async (rows, said) => {
        const lines = rows.map(({ base, drop, set, tool }) => {
          const row: Record<string, unknown> = { ...base };
          for (const f of drop) delete row[f];
          if (tool) row.tools = [tool];
          for (const [k, v] of Object.entries(set))
            Object.defineProperty(row, k, { value: v, enumerable: true, writable: true });
          // Nesting deeper than a recursive reader's stack, spliced in as text (fast-check cannot print it).
          return JSON.stringify(row).replaceAll(`"${DEEP}"`, "[".repeat(20_000) + "]".repeat(20_000));
        });
        const path = file(lines);
        const message = issueOf(path);
        if (message !== undefined) {
          expect(message).not.toMatch(/\n/);
          expect(message.length).toBeLessThan(1000);
          return;
        }
        const { cases } = readDecisionSuite(path);
        const entries = cases.map((c) => ({ node: c.nodeId, proposal: said }));
        const score = await evaluateChain(
          [{ delegate: new ScriptedDelegate({ entries }), minConfidence: 0.5 }],
          cases,
          { freeText: { names: ["summary"], minOverlap: 0.5 } },
        );
        expect(score.decided).toBeLessThanOrEqual(cases.length);
        expect(score.correct).toBeLessThanOrEqual(score.decided);
      }),
      { numRuns: 150 },
    );
  });
});
