/**
 * Node types own their rules (issue 37, item 4): what a model may write in a node (`NodeType.modelWrites`) and
 * what the console shows for one (`NodeType.consoleView`) are declared by its type, so authoring/ (repairs,
 * authored plans) and ui/ (the console) name no field of the delegate or agent node types. This test reads the
 * real tree: a new gate field, or a new node type, means no edit there.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { agentNodeFields } from "../src/agents/agent-node.js";
import { delegateNodeFields } from "../src/delegate/delegate-node.js";
import { baseNodeShape } from "../src/plan/plan-schema.js";

const root = resolve(import.meta.dirname, "..");
const sources = (folder: string) =>
  readdirSync(join(root, "src", folder), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => join(root, "src", folder, f));

const own = [...Object.keys(delegateNodeFields), ...Object.keys(agentNodeFields)].filter(
  (f) => !Object.hasOwn(baseNodeShape, f),
);
// Names of their own (`min_confidence`, `allow_side_effects`, …): not to be written anywhere there, comments
// and prompts included. Plain words (`instruction`, `tools`, `input`, …) also name the records a console shows
// (an escalation's instruction and facts) and the host's tools, so for them only the way code names a field
// counts: a string literal, in authoring/.
const distinctive = own.filter((f) => f.includes("_"));
const plain = own.filter((f) => !f.includes("_"));

/** The source without its comments (a rough cut that is enough here: no `//` or `/*` inside these files' strings matters). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

function offenders(files: string[], names: string[], literalOnly: boolean): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const searched = literalOnly ? code(text) : text;
    for (const name of names) {
      const pattern = literalOnly ? new RegExp(`["'\`]${name}["'\`]`) : new RegExp(`\\b${name}\\b`);
      if (pattern.test(searched)) found.push(`${relative(root, file)}: ${name}`);
    }
  }
  return found;
}

describe("node types own their rules", () => {
  it("knows the fields it guards (the delegate and agent node types' own)", () => {
    expect(distinctive).toEqual(
      expect.arrayContaining([
        "min_confidence",
        "allow_side_effects",
        "accept_when",
        "on_reject",
        "escalate_to",
      ]),
    );
    expect(plain).toEqual(
      expect.arrayContaining(["instruction", "facts", "tools", "agent", "action", "input"]),
    );
  });

  it("authoring/ and ui/ name no delegate or agent field of their own", () => {
    const files = [...sources("authoring"), ...sources("ui")];
    expect(files.length).toBeGreaterThan(20);
    expect(offenders(files, distinctive, false)).toEqual([]);
  });

  it("authoring/ names no delegate or agent field as a string in its code", () => {
    expect(offenders(sources("authoring"), plain, true)).toEqual([]);
  });
});
