import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("./main.ts", import.meta.url));

describe("examples/support-triage", () => {
  it("runs offline on the mock provider and prints the answer and the ledgers", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", main, "--json"], { encoding: "utf8" });
    const result = JSON.parse(out);
    expect(result.text).toContain('classify: {"category":"billing","urgency":"high"}');
    expect(result.ledger.calls).toBe(2);
    expect(Object.keys(result.ledgers)).toEqual(["classify", "search_help_centre"]);
    expect(result.ledger.tokens).toBe(
      result.ledgers.classify.tokens + result.ledgers.search_help_centre.tokens,
    );
    expect(result.ledger.cost).toBeGreaterThan(0);
  });
});
