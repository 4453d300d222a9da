import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeputyError } from "../../errors/deputy-error.js";
import { BAD, message } from "../../delegate/escalation/check-decision.fixture.js";
import { checkDecision } from "../../delegate/escalation/check-decision.js";
import { resolveEscalation } from "../../delegate/escalation/resolve-escalation.js";
import { MemoryRunStore } from "../../store/memory-run-store.js";
import { parseDecision } from "./decision-body.js";

describe("parseDecision", () => {
  it("takes exactly one of call, value or skip, with who decides", () => {
    expect(parseDecision({ nodeId: "n", item: 2, by: " Ada ", skip: true })).toEqual({
      nodeId: "n",
      decision: { item: 2, by: "Ada", skip: true },
    });
    expect(parseDecision({ nodeId: "n", by: "Ada", value: null }).decision).toEqual({
      by: "Ada",
      value: null,
    });
    expect(parseDecision({ nodeId: "n", by: "Ada", call: { name: "t" } }).decision).toEqual({
      by: "Ada",
      call: { name: "t", arguments: {} },
    });
    for (const bad of [
      { nodeId: "n", by: "Ada" },
      { nodeId: "n", by: "", skip: true },
      { nodeId: "n", by: "Ada", skip: true, value: 1 },
      { nodeId: "n", by: "Ada", call: { name: "t", arguments: [] } },
      { nodeId: "n", by: "Ada", skip: false },
      null,
      [],
    ])
      expect(() => parseDecision(bad), JSON.stringify(bad)).toThrow(/decision/i);
  });

  it("never lets anything but a well-formed decision through, and fails only with a typed error", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              nodeId: fc.oneof(fc.string(), fc.integer()),
              item: fc.oneof(fc.integer(), fc.double(), fc.string()),
              by: fc.string(),
              call: fc.oneof(fc.jsonValue(), fc.record({ name: fc.string(), arguments: fc.jsonValue() })),
              value: fc.jsonValue(),
              skip: fc.oneof(fc.boolean(), fc.constant(true)),
            },
            { requiredKeys: [] },
          ),
        ),
        (input) => {
          let parsed;
          try {
            parsed = parseDecision(input);
          } catch (error) {
            expect(DeputyError.isInstance(error) && error.code === "RESOLUTION_INVALID").toBe(true);
            return;
          }
          const { decision } = parsed;
          expect(typeof parsed.nodeId === "string" && parsed.nodeId.length > 0).toBe(true);
          expect(decision.by!.trim()).toBe(decision.by);
          expect(decision.by!.length).toBeGreaterThan(0);
          const kinds = [decision.call !== undefined, "value" in decision, decision.skip === true];
          expect(kinds.filter(Boolean)).toHaveLength(1);
          if (decision.item !== undefined)
            expect(Number.isInteger(decision.item) && decision.item >= 0).toBe(true);
          if (decision.call) {
            expect(typeof decision.call.name).toBe("string");
            expect(
              typeof decision.call.arguments === "object" && !Array.isArray(decision.call.arguments),
            ).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("checks the decision with the library's check: the same mistake reads the same everywhere", async () => {
    const store = new MemoryRunStore();
    for (const [fields] of BAD) {
      const expected = message(() => checkDecision(fields));
      const posted = message(() => parseDecision({ nodeId: "n", by: "Ada", ...fields }));
      const library = await resolveEscalation(store, "r", "n", fields as never).then(
        () => "resolved",
        (error: Error) => error.message,
      );
      expect([posted, library]).toEqual([expected, expected]);
    }
  });

  it("takes approve, or reject with an optional reason, as one more kind of decision", () => {
    expect(parseDecision({ nodeId: "n", by: "Ada", approve: true }).decision).toEqual({
      by: "Ada",
      approve: true,
    });
    expect(parseDecision({ nodeId: "n", by: "Ada", item: 1, reject: true, reason: " no " }).decision).toEqual(
      {
        by: "Ada",
        item: 1,
        reject: true,
        reason: "no",
      },
    );
    for (const [bad, pattern] of [
      [{ approve: true, reject: true }, /call, value, skip, approve or reject \(got 2\)/],
      [{ approve: true, skip: true }, /\(got 2\)/],
      [{ approve: true, reason: "x" }, /reason goes with reject only/],
      [{ reason: "x" }, /call, value, skip, approve or reject \(got 0\)/],
      [{ reject: true, reason: 3 }, /reason is a non-empty string/],
      [{ reject: true, reason: "x".repeat(1001) }, /at most 1000/],
    ] as const)
      expect(() => parseDecision({ nodeId: "n", by: "Ada", ...bad }), JSON.stringify(bad)).toThrow(pattern);
  });

  it("an approval decision is exactly one kind, and a reason only ever rides on a reject", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            nodeId: fc.constant("n"),
            by: fc.constant("Ada"),
            approve: fc.oneof(fc.boolean(), fc.jsonValue()),
            reject: fc.oneof(fc.boolean(), fc.jsonValue()),
            reason: fc.oneof(fc.string(), fc.jsonValue()),
            skip: fc.boolean(),
            value: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
        (input) => {
          let decision;
          try {
            decision = parseDecision(input).decision as Record<string, unknown>;
          } catch (error) {
            expect(DeputyError.isInstance(error) && error.code === "RESOLUTION_INVALID").toBe(true);
            return;
          }
          const kinds = ["call", "value", "skip", "approve", "reject"].filter((k) => k in decision);
          expect(kinds).toHaveLength(1);
          if ("reason" in decision) {
            expect(kinds).toEqual(["reject"]);
            expect(typeof decision.reason === "string" && decision.reason.trim() === decision.reason).toBe(
              true,
            );
          }
          if ("approve" in decision) expect(decision.approve).toBe(true);
          if ("reject" in decision) expect(decision.reject).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
