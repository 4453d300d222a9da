/**
 * A proposal's records are declared once, in src/records/ (issue 37): a task, a hop, an escalation and spend
 * elsewhere are projections (Pick, Omit, extends) of those, never a type that spells their fields out again. This
 * reads every non-test source file with the TypeScript parser and lists each interface or object type that
 * declares a record's telling fields itself.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const src = join(root, "src");

/** Each record, by the fields that give it away when a type declares all of them itself. */
const RECORDS: Record<string, readonly string[]> = {
  "the delegate task (records/delegate-task.ts)": ["instruction", "facts"],
  "spend (records/spend.ts)": ["calls", "tokens", "cost", "duration"],
  "a hop summary (records/hop.ts)": ["backend", "verdict", "latencyMs"],
  "an escalation (records/escalation.ts)": ["verdict", "reason"],
  "a proposed call (records/hop.ts)": ["name", "arguments", "confidence"],
};

/** Where a record's own declaration sits outside records/: the proposal, in tools/ beside ToolSpec (see there). */
const HOMES = new Set([join("src", "tools", "proposal.ts")]);

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$|\.test-d\.ts$|\.fixture\.ts$/.test(f))
    .map((f) => join(dir, f));
}

/** `file:line record` for every type literal or interface outside records/ that redeclares a record. */
function redeclarations(): string[] {
  const found: string[] = [];
  for (const file of sources(src)) {
    const rel = relative(root, file);
    if (rel.startsWith(join("src", "records")) || HOMES.has(rel)) continue;
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
        const names = new Set(
          node.members
            .filter(ts.isPropertySignature)
            .map((m) => (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : "")),
        );
        for (const [record, fields] of Object.entries(RECORDS))
          if (fields.every((f) => names.has(f))) {
            const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
            found.push(`${rel}:${line} ${record}`);
          }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

describe("a proposal's records are declared once", () => {
  it("no type outside src/records/ spells out a task, spend, a hop, an escalation or a proposed call again", () => {
    expect(redeclarations()).toEqual([]);
  });

  it("the accept gate takes a check policy, not skip flags", () => {
    const flags = sources(src).filter((f) => /\bskip(Confidence|Guard)\b/.test(readFileSync(f, "utf8")));
    expect(flags.map((f) => relative(root, f))).toEqual([]);
  });
});
