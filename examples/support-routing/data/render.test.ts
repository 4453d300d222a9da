/**
 * The support team's development decisions as deputy reads them: render.mjs turns every line of development.tsv
 * into a valid call of its tool under policy.md's conventions, and development.jsonl is exactly its output.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateValue } from "../../../src/schema/validator.js";
import type { JsonSchema } from "../../../src/schema/json-schema.js";
import { tools } from "../tools.mjs";
import { CANDIDATES, renderTsv } from "./render.mjs";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const tsv = readFileSync(here("development.tsv"), "utf8");
const records = readFileSync(here("development.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as ReturnType<typeof renderTsv>[number]);
const toolOf = (name: string) => tools.find((t) => t.name === name)!;
/** What policy.md allows per tier: enterprise P1/P2, pro P2/P3, free P3. */
const ALLOWED = { free: ["P3"], pro: ["P2", "P3"], enterprise: ["P1", "P2"] } as Record<string, string[]>;

describe("examples/support-routing/data", () => {
  it("development.jsonl is render.mjs's output of development.tsv, one record per line", () => {
    expect(records).toHaveLength(340);
    expect(renderTsv(tsv, "development")).toEqual(records);
  });

  it("every person's call is a valid call of its tool, and follows the policy's conventions", () => {
    const lines = tsv.trim().split("\n");
    for (const [i, r] of records.entries()) {
      const [id, tier, channel, , , , subject, body] = lines[i]!.split("\t");
      expect(r).toMatchObject({ nodeId: "route_tickets", item: i, verdict: "accepted", source: "person" });
      expect(r.instruction).toBe(`Route this support ticket: ${subject} — ${body}`);
      expect(r.facts).toEqual({ ticket_id: id, customer_tier: tier, channel });
      expect(["free", "pro", "enterprise"]).toContain(tier);
      expect(["email", "chat", "web_form"]).toContain(channel);
      expect(r.tools.map((t) => t.name)).toEqual(CANDIDATES);
      const call = r.finalCall!;
      expect(CANDIDATES).toContain(call.name);
      const checked = validateValue(toolOf(call.name).input as JsonSchema, call.arguments);
      expect(checked, `${id}: ${JSON.stringify(call)}`).toEqual({ ok: true });
      expect(call.arguments.ticket_id).toBe(id);
      if (call.name === "escalate_to_security") expect(call.arguments.summary).toBe(subject);
      if (call.name === "escalate_to_security" || call.name === "close_ticket")
        expect(call.arguments).not.toHaveProperty("priority");
      else
        expect(ALLOWED[tier!], `${id}: ${tier} ${String(call.arguments.priority)}`).toContain(
          call.arguments.priority,
        );
    }
  });

  it("renders the tools' own schemas, so a gate judging the records judges them as the node does", () => {
    for (const spec of records[0]!.tools) expect(spec.parameters).toEqual(toolOf(spec.name).input);
    for (const name of CANDIDATES) expect(toolOf(name).input).toMatchObject({ additionalProperties: false });
  });

  it("renders any well-formed line and refuses a line with a wrong field count or an unknown tool", () => {
    const field = fc.stringMatching(/^[^\s#][^\t\n]{0,20}$/);
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 12 }), (fields) => {
        const line = fields.join("\t");
        if (fields.length !== 8) expect(() => renderTsv(line, "x")).toThrow(/fields/);
        else if (!CANDIDATES.includes(fields[3]!)) expect(() => renderTsv(line, "x")).toThrow(/unknown tool/);
        else expect(renderTsv(line, "x")[0]!.finalCall!.arguments.ticket_id).toBe(fields[0]);
      }),
    );
    expect(() => renderTsv("TCK-1\tfree\tchat\treopen_ticket\tx\t-\ts\tb", "x")).toThrow(/unknown tool/);
  });
});
