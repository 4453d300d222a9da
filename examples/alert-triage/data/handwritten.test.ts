/**
 * The alert sets as deputy reads them: each committed `NAME.jsonl` is exactly `renderAlertTsv` of its `NAME.tsv`, so
 * a set rendered in code (bench/flywheel-sealed.ts) gets the traces the command line writes. A sealed set (none
 * today) is not read here: nothing renders it before its protocol is committed.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FIRST_ID, renderAlertTsv } from "./handwritten.mjs";
import { HAND_WRITTEN_SETS } from "../../../src/distill/alert-triage.fixture.js";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const SETS = HAND_WRITTEN_SETS;

describe("examples/alert-triage/data/handwritten.mjs", () => {
  it.each(SETS)("%s.jsonl is renderAlertTsv of %s.tsv", (name) => {
    const rendered = renderAlertTsv(readFileSync(here(`${name}.tsv`), "utf8"), name);
    const committed = readFileSync(here(`${name}.jsonl`), "utf8");
    expect(rendered.map((t) => JSON.stringify(t)).join("\n") + "\n").toBe(committed);
  });

  it("numbers a set's alerts from its first id, and refuses a label the policy does not have", () => {
    const [page, ignored] = renderAlertTsv(
      "critical\tpage\tcheckout down\ninfo\tinfo\tdeploy done\n",
      "holdout6",
    );
    expect(page!.facts).toEqual({
      alert_id: `ALR-${FIRST_ID.holdout6}`,
      severity: "critical",
      environment: "production",
    });
    expect(page!.finalCall).toEqual({
      name: "escalate_to_pagerduty",
      arguments: { alert_id: "ALR-2001", urgency: "high", summary: "checkout down" },
    });
    expect(ignored!.finalCall).toEqual({
      name: "ignore_alert",
      arguments: { alert_id: "ALR-2002", reason: "informational" },
    });
    expect(() => renderAlertTsv("medium\tpage\tdisk at 80 %\n", "x")).toThrow(/page with severity medium/);
    expect(() => renderAlertTsv("high\turgent\tsomething\n", "x")).toThrow(/unknown label urgent/);
  });
});
