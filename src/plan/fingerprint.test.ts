import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../runtime/canonical-json.js";
import { planFingerprint } from "./fingerprint.js";

/** The same object with its keys inserted in reverse order, at every level. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).reverse()) {
      const v = reversed((value as Record<string, unknown>)[k]);
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

describe("plan fingerprints", () => {
  it("do not depend on key order, and canonical JSON is stable through a parse", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(planFingerprint(reversed(value))).toBe(planFingerprint(value));
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it("change with any change that matters: a value, array order, a key", () => {
    const plan = {
      name: "p",
      nodes: [
        { id: "a", tool: "t", args: { x: 1 } },
        { id: "b", tool: "t" },
      ],
    };
    const base = planFingerprint(plan);
    expect(base).toMatch(/^[0-9a-f]{32}$/);
    expect(planFingerprint({ ...plan, name: "q" })).not.toBe(base);
    expect(planFingerprint({ ...plan, nodes: [...plan.nodes].reverse() })).not.toBe(base);
    expect(
      planFingerprint({ ...plan, nodes: [{ ...plan.nodes[0], args: { x: 2 } }, plan.nodes[1]] }),
    ).not.toBe(base);
    expect(planFingerprint({ ...plan, metadata: {} })).not.toBe(base);
  });

  it("treat an undefined field as absent (as JSON does)", () => {
    expect(planFingerprint({ name: "p", when: undefined })).toBe(planFingerprint({ name: "p" }));
  });

  it("are what they were before canonical JSON moved to runtime/ (stored runs keep resuming)", () => {
    // Computed with the fingerprint of commit c40f46c (its own canonicalJson) on this nested plan.
    const plan = {
      name: "triage",
      objective: "sort alerts",
      metadata: { max_parallel_tasks: 4, checkpoint: true },
      nodes: [
        {
          id: "fetch",
          tool: "list_alerts",
          args: { filter: { severity: ["high", "low"], since: { days: 2 } } },
          store_as: "alerts",
        },
        {
          id: "triage",
          type: "delegate",
          depends_on: ["fetch"],
          instruction: "Decide {item.title}",
          facts: { alert: "{item}", nested: { b: 1, a: { z: [1, { y: 2, x: 3 }] } } },
          tools: ["page", "ignore_alert"],
          for_each: { source: "{artifacts.fetch}", as: "item", max_items: 10 },
          store_as: "d_{index}",
          min_confidence: 0.5,
        },
      ],
    };
    expect(planFingerprint(plan)).toBe("607f87c6c00ccc6925cda6135829476f");
    expect(planFingerprint(reversed(plan))).toBe("607f87c6c00ccc6925cda6135829476f");
  });
});
