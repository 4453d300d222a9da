// What a tuned reader trains on: deputy's own encoder text of each decision and a label a person chose among.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alertTriageExamples } from "./alert-triage.fixture.js";
import { commonPrefix, taskText } from "./encoder-input.js";
import type { TrainingExample } from "./training-examples.js";
import { callLabel, classArguments, DECLINE_LABEL, tuningSet } from "./tuning-set.js";

describe("tuningSet", () => {
  const examples = alertTriageExamples("escalations");
  const set = tuningSet(examples);

  it("labels an alert by tool and the enum a person chose, never by the copied id or text", () => {
    expect(set.labels).toEqual([
      'escalate_to_pagerduty urgency="high"',
      'escalate_to_pagerduty urgency="low"',
      'file_jira_ticket priority="P2" project="OPS"',
      'file_jira_ticket priority="P3" project="OPS"',
      'file_jira_ticket priority="P4" project="OPS"',
      'ignore_alert reason="informational"',
      'ignore_alert reason="non-production"',
      'ignore_alert reason="self-resolved"',
    ]);
    expect(set.examples).toHaveLength(examples.length);
  });

  it("gives the reader exactly the text the distilled level's encoder embeds", () => {
    const prefix = commonPrefix(examples.map((e) => e.instruction));
    expect(set.prefix).toBe(prefix);
    expect(prefix).toMatch(/^Analyze this alert/);
    examples.forEach((e, i) => expect(set.examples[i]!.text).toBe(taskText(e.instruction, e.facts, prefix)));
    expect(set.examples[0]!.text.endsWith("\nAction:")).toBe(true);
  });

  it("keeps a chosen argument in the label when one alert happens to contain its value", () => {
    const ignored = examples.filter((e) => e.call.name === "ignore_alert");
    const echoed = ignored.map((e, i) =>
      i === 0 ? { ...e, instruction: `${e.instruction} (${String(e.call.arguments["reason"])})` } : e,
    );
    const classes = classArguments(echoed);
    expect(classes.get("ignore_alert")).toEqual(new Set(["reason"]));
    expect(callLabel(echoed[0]!.call, classes)).toMatch(/^ignore_alert reason="/);
  });

  it("labels a decline, and a call to a tool the node no longer offers, by name alone", () => {
    const classes = classArguments(examples);
    expect(callLabel({ name: null, arguments: {} }, classes)).toBe(DECLINE_LABEL);
    expect(callLabel({ name: "retired_tool", arguments: { urgency: "high" } }, classes)).toBe("retired_tool");
  });

  it("never throws on hostile schemas and calls, and a label does not depend on argument order", () => {
    const schema = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc.record({ enum: fc.array(fc.jsonValue()) }),
      fc.record({ type: fc.constantFrom("boolean", "string", 3) }),
      fc.jsonValue(),
    );
    const example = fc.record({
      instruction: fc.string(),
      facts: fc.dictionary(fc.string(), fc.jsonValue()),
      name: fc.oneof(fc.constant(null), fc.constantFrom("t", "u", "__proto__", "constructor")),
      args: fc.dictionary(fc.string(), fc.jsonValue()),
      properties: fc.dictionary(fc.string(), schema),
    });
    fc.assert(
      fc.property(fc.array(example, { maxLength: 12 }), (raw) => {
        const built: TrainingExample[] = raw.map((r) => ({
          instruction: r.instruction,
          facts: r.facts,
          tools: [
            {
              name: r.name ?? "t",
              description: "",
              parameters: { type: "object", properties: r.properties },
            },
          ],
          call: r.name === null ? { name: null, arguments: {} } : { name: r.name, arguments: r.args },
          source: "person",
        }));
        const set = tuningSet(built);
        expect(set.examples).toHaveLength(built.length);
        const classes = classArguments(built);
        for (const e of built) {
          const reversed = {
            ...e.call,
            arguments: Object.fromEntries(Object.entries(e.call.arguments).reverse()),
          };
          expect(callLabel(reversed, classes)).toBe(callLabel(e.call, classes));
        }
      }),
    );
  });
});
