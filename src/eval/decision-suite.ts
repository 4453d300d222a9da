import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { strictSchema } from "../delegate/strict-schema.js";
import { examplesFromTraces } from "../distill/training-examples.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import { compileSchema } from "../schema/validator.js";
import type { DelegateTask } from "../records/delegate-task.js";
import type { CallOrDecline } from "../records/hop.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import type { DelegateTrace } from "../traces/trace.js";
import { parseSuiteLine } from "./decision-line.js";

/**
 * One decision to evaluate on: what a node was asked (instruction, facts, candidate tools) and the call that
 * was made for it (`name: null`: declining was right), read from a trace or a chat example.
 */
export interface DecisionCase extends DelegateTask {
  /** Where it was read: `FILE:LINE`. */
  at: string;
  /** The node the decision is of (a chat example carries none: `--node`, else `decisions`). */
  nodeId: string;
  call: CallOrDecline;
}

/** A read decision suite: the decisions in file order, and what was read but is no decision. */
export interface DecisionSuite {
  files: string[];
  cases: DecisionCase[];
  /** Traces left out, by `examplesFromTraces`' reasons (a rejected proposal is no decision: `notLabelled`). */
  skipped: {
    otherNode: number;
    notLabelled: number;
    redacted: number;
    duplicate: number;
    conflicting: number;
  };
}

/** Options of {@link readDecisionSuite}. */
export interface ReadDecisionSuiteOptions {
  /** Keep only this node's decisions (and name chat examples' node so). Default: every node. */
  node?: string;
  /** At most this many decisions (the first). Default: all. */
  limit?: number;
}

const CHAT_NODE = "decisions";

/** The `.jsonl` files of a suite path: the file itself, or a folder's, sorted. */
export function suiteFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(path, f));
}

/**
 * The format of a suite: `bfcl` when its first record is a BFCL case, `decisions` when it is a trace or a chat
 * example. Throws one {@link InvalidOptionError} naming the file and line when it is neither, or when a folder
 * mixes them.
 */
export function suiteFormat(path: string): "bfcl" | "decisions" {
  const formats = new Set<"bfcl" | "decisions">();
  for (const file of suiteFiles(path)) {
    const lines = readLines(file);
    const first = lines.find((l) => l.text.trim() !== "");
    if (!first) continue;
    const parsed = parseSuiteLine(first.text);
    if ("issue" in parsed) throw lineError(file, first.line, parsed.issue);
    formats.add(parsed.format === "bfcl" ? "bfcl" : "decisions");
  }
  if (formats.size === 0)
    throw new InvalidOptionError("--suite", "a .jsonl file of decision records or BFCL cases", path);
  if (formats.size > 1)
    throw new InvalidOptionError("--suite", "a folder of one format (decision records or BFCL cases)", path);
  return [...formats][0]!;
}

/**
 * Reads decision records from a `.jsonl` file or a folder of them; each line may be a trace or a chat example.
 * A trace counts as a decision by `examplesFromTraces`' rule (an accepted call; a decline by an agent or a
 * person), later traces of the same input win. Any line that is not a well-formed record — not JSON, a BFCL
 * case, a field of the wrong type, a tool schema Ajv cannot compile — is one {@link InvalidOptionError} naming
 * the file, line and field; nothing is evaluated.
 */
export function readDecisionSuite(path: string, options: ReadDecisionSuiteOptions = {}): DecisionSuite {
  const { node, limit } = options;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new InvalidOptionError("limit", "a positive integer", limit);
  const files = suiteFiles(path);
  const traces: DelegateTrace[] = [];
  const where = new WeakMap<object, string>();
  const chats: DecisionCase[] = [];
  const order: object[] = [];
  const interned = new Map<string, ToolSpec>();
  for (const file of files) {
    for (const { text, line } of readLines(file)) {
      if (text.trim() === "") continue;
      const parsed = readLine(file, line, text, interned);
      if (parsed.format === "trace") {
        traces.push(parsed.trace);
        where.set(parsed.trace.tools, `${file}:${line}`);
        order.push(parsed.trace.tools);
      } else {
        const decision: DecisionCase = {
          at: `${file}:${line}`,
          nodeId: node ?? CHAT_NODE,
          ...parsed.decision,
        };
        chats.push(decision);
        order.push(decision);
      }
    }
  }
  const skipped = { otherNode: 0, notLabelled: 0, redacted: 0, duplicate: 0, conflicting: 0 };
  const byTools = new Map<object, DecisionCase>();
  const nodes = node === undefined ? [...new Set(traces.map((t) => t.nodeId))] : [node];
  for (const nodeId of nodes) {
    const selection = examplesFromTraces(traces, nodeId);
    for (const [k, n] of Object.entries(selection.skipped))
      if (k !== "otherNode") skipped[k as keyof typeof skipped] += n;
    for (const e of selection.examples) {
      byTools.set(e.tools, {
        at: where.get(e.tools) ?? "",
        nodeId,
        instruction: e.instruction,
        facts: e.facts,
        tools: e.tools,
        call: e.call,
      });
    }
  }
  if (node !== undefined) skipped.otherNode = traces.filter((t) => t.nodeId !== node).length;
  const chatSet = new Set<object>(chats);
  const cases = order.flatMap((key) =>
    chatSet.has(key) ? [key as DecisionCase] : byTools.has(key) ? [byTools.get(key)!] : [],
  );
  return { files, cases: cases.slice(0, limit), skipped };
}

/** One line as a trace or a chat decision, its tools shared with equal ones read before; else the line's error. */
function readLine(
  file: string,
  line: number,
  text: string,
  interned: Map<string, ToolSpec>,
): Exclude<ReturnType<typeof parseSuiteLine>, { issue: unknown } | { format: "bfcl" }> {
  let parsed: ReturnType<typeof parseSuiteLine>;
  try {
    parsed = parseSuiteLine(text);
    if ("issue" in parsed) throw lineError(file, line, parsed.issue);
    if (parsed.format === "bfcl")
      throw lineError(file, line, {
        field: "",
        expected: "a decision record like the lines before it",
        got: "a BFCL case",
      });
    const record = parsed.format === "trace" ? parsed.trace : parsed.decision;
    const problem = schemaProblem(record.tools, interned);
    if (problem) throw lineError(file, line, problem);
    record.tools = record.tools.map((t) => interned.get(canonicalJson(t))!);
    return parsed;
  } catch (error) {
    if (InvalidOptionError.isInstance(error)) throw error;
    // Past what a line may hold (nesting deeper than the stack, say): still one error naming the line.
    throw lineError(file, line, { field: "", expected: "a decision record", got: (error as Error).message });
  }
}

/**
 * Compiles each tool's schema once (identical specs share one object, so Ajv sees each schema once): a schema it
 * cannot compile is the line's issue, found before anything runs rather than inside the gate.
 */
function schemaProblem(
  tools: ToolSpec[],
  interned: Map<string, ToolSpec>,
): { field: string; expected: string; got: unknown } | undefined {
  for (const [i, tool] of tools.entries()) {
    const key = canonicalJson(tool);
    if (interned.has(key)) continue;
    try {
      compileSchema(strictSchema(tool.parameters));
    } catch (error) {
      return {
        field: `tools[${i}].parameters`,
        expected: "a JSON Schema Ajv compiles",
        got: (error as Error).message,
      };
    }
    interned.set(key, tool);
  }
  return undefined;
}

function readLines(file: string): { text: string; line: number }[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new InvalidOptionError("--suite", "a readable .jsonl file or a folder of them", file);
  }
  return text.split("\n").map((t, i) => ({ text: t, line: i + 1 }));
}

function lineError(file: string, line: number, issue: { field: string; expected: string; got: unknown }) {
  const at = `${file}:${line}${issue.field ? ` ${issue.field}` : ""}`;
  return new InvalidOptionError(at, issue.expected, issue.got);
}
