import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runPlan } from "../compose/index.js";
import { compileGuard } from "../runtime/cel-guard.js";
import { validateValue } from "../schema/validator.js";
import { defineTool } from "../tools/define-tool.js";
import { acceptGate, VERDICTS } from "./accept-gate.js";
import type { Proposal } from "./protocol.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

const ran: string[] = [];
const note = defineTool({
  name: "note",
  description: "records a note",
  delegateSafe: true,
  input: {
    type: "object",
    properties: { text: { type: "string", maxLength: 50 } },
    required: ["text"],
    additionalProperties: false,
  },
  run: ({ text }) => {
    ran.push(`note:${String(text)}`);
    return "ok";
  },
});
const wipe = defineTool({
  name: "wipe",
  description: "side effect, never delegate-safe",
  input: { type: "object", properties: {} },
  run: () => {
    ran.push("wipe");
    return "wiped";
  },
});
const tools = new Map([note, wipe].map((t) => [t.name, t]));

const PROTO = ["constructor", "__proto__", "toString", "hasOwnProperty"];
const names = fc.oneof(
  fc.constantFrom("note", "wipe", "ghost", "", ...PROTO),
  fc.string(),
  fc.constant(null),
);
const deep = fc.integer({ min: 0, max: 400 }).map((d) => {
  let v: unknown = "x";
  for (let i = 0; i < d; i++) v = { text: v };
  return v;
});
const args = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 80 }) }),
  fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...PROTO)), fc.jsonValue({ maxDepth: 2 })),
  deep,
  fc.constantFrom(null, [], "text", 42),
);
const confidence = fc.oneof(
  fc.double({ min: -1, max: 2, noNaN: false }),
  fc.constantFrom(null, 0.8, Number.NaN, Infinity, -Infinity),
);
const proposals = fc
  .record({ name: names, arguments: args, confidence })
  .map((p) => ({ ...p, backend: "gen", latencyMs: 1 }) as unknown as Proposal);
const guard = compileGuard("ctx.proposal.arguments.text.matches('^[a-z ]*$')");

describe("generated proposals", () => {
  it("the gate never throws, and accepts only a candidate tool with valid arguments, confidence and guard", () => {
    fc.assert(
      fc.property(proposals, fc.boolean(), (proposal, useGuard) => {
        const result = acceptGate({
          proposal,
          candidates: ["note", "wipe"],
          findTool: (n) => tools.get(n),
          allowSideEffects: { node: true, host: false },
          minConfidence: 0.7,
          ...(useGuard ? { guard } : {}),
        });
        expect(VERDICTS).toContain(result.verdict);
        if (result.verdict === "accepted") {
          expect(result.call!.name).toBe("note");
          expect(validateValue(note.parameters, result.call!.arguments).ok).toBe(true);
          expect(proposal.confidence).toBeGreaterThanOrEqual(0.7);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("through a real run, no call runs unless its proposal was accepted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(proposals, { minLength: 1, maxLength: 6 }), async (list) => {
        ran.length = 0;
        const entries = list.map((p, item) => ({
          node: "d",
          item,
          proposal: {
            name: p.name,
            arguments: p.arguments as Record<string, unknown>,
            confidence: p.confidence,
          },
        }));
        const m = await runPlan(
          {
            name: "gen",
            nodes: [
              { id: "src", tool: "note", args: { text: "seed" }, store_as: "src" },
              {
                id: "d",
                type: "delegate",
                depends_on: ["src"],
                instruction: "write a note {index}",
                tools: ["note", "wipe"],
                min_confidence: 0.7,
                allow_side_effects: true,
                store_as: "d_{index}",
                for_each: { source: "{artifacts.items}" },
              },
            ],
          },
          {
            tools: [note, wipe],
            delegates: [new ScriptedDelegate({ entries })],
            artifacts: { items: list.map((_, i) => i) },
          },
        );
        expect(m.nodes.d!.items!.total).toBe(list.length);
        const accepted = list.filter((p) => {
          const r = acceptGate({
            proposal: p,
            candidates: ["note", "wipe"],
            findTool: (n) => tools.get(n),
            allowSideEffects: { node: true, host: false },
            minConfidence: 0.7,
          });
          return r.verdict === "accepted";
        });
        // The seed call plus one per accepted proposal; never a side effect the host did not allow.
        expect(ran.filter((r) => r !== "note:seed")).toHaveLength(accepted.length);
        expect(ran).not.toContain("wipe");
      }),
      { numRuns: 60 },
    );
  });
});
