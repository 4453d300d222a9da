import { DECLINE_LINE } from "../runtime/tool-call-prompt.js";
import type { DelegateTask } from "../records/delegate-task.js";
import type { CallOrDecline, ProposalSource } from "../records/hop.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import type { DelegateTrace } from "../traces/trace.js";

/**
 * The shapes a line of an eval suite may have: a delegate trace (what `deputy run --traces` writes and the
 * example's decision files hold), a chat example (what `deputy traces export --format chat` writes), or a BFCL
 * case (`question` and `function`).
 */
export type SuiteLineFormat = "trace" | "chat" | "bfcl";

/** A decision read from a chat example: the task and the call the assistant's answer holds. */
export interface ChatDecision extends DelegateTask {
  call: CallOrDecline;
}

/** What one line is: its format and what it holds, or the one thing wrong with it (`field`: where). */
export type ParsedLine =
  | { format: "trace"; trace: DelegateTrace }
  | { format: "chat"; decision: ChatDecision }
  | { format: "bfcl" }
  | { issue: { field: string; expected: string; got: unknown } };

const DECISION_SHAPES =
  "a decision record (a trace with instruction, tools, verdict and finalCall, or a chat example with messages) or a BFCL case";
const SOURCES: readonly ProposalSource[] = ["delegate", "agent", "person"];
const TOOLS_HEADING = "\n\nTools:\n";
const FACTS = "\nFacts: ";

/** Which format a parsed JSON line has, by the keys only a format has; `undefined` when none. */
export function suiteLineFormat(value: unknown): SuiteLineFormat | undefined {
  if (!isRecord(value)) return undefined;
  if ("messages" in value) return "chat";
  if ("question" in value && "function" in value) return "bfcl";
  if ("instruction" in value || "verdict" in value || "finalCall" in value) return "trace";
  return undefined;
}

/**
 * Parses one line of a suite file and checks every field the evaluation reads, so a hostile line gives one clear
 * issue instead of an error later: wrong types, missing fields, a chat prompt deputy did not write.
 */
export function parseSuiteLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { issue: { field: "", expected: `JSON: ${DECISION_SHAPES}`, got: line } };
  }
  switch (suiteLineFormat(value)) {
    case "bfcl":
      return { format: "bfcl" };
    case "chat":
      return parseChat(value as Record<string, unknown>);
    case "trace":
      return parseTrace(value as Record<string, unknown>);
    default:
      return { issue: { field: "", expected: DECISION_SHAPES, got: value } };
  }
}

function parseTrace(v: Record<string, unknown>): ParsedLine {
  if (typeof v.instruction !== "string") return issue("instruction", "a string", v.instruction);
  if (v.facts !== undefined && !isRecord(v.facts)) return issue("facts", "an object", v.facts);
  if (typeof v.verdict !== "string") return issue("verdict", "a string", v.verdict);
  if (v.nodeId !== undefined && typeof v.nodeId !== "string") return issue("nodeId", "a string", v.nodeId);
  if (v.source !== undefined && !SOURCES.includes(v.source as ProposalSource))
    return issue("source", SOURCES.join(", "), v.source);
  const tools = toolSpecs(v.tools, "tools");
  if ("issue" in tools) return tools;
  if (v.finalCall !== undefined) {
    const call = callOf(v.finalCall, "finalCall", false);
    if ("issue" in call) return call;
  }
  const trace: DelegateTrace = {
    runId: typeof v.runId === "string" ? v.runId : "",
    nodeId: (v.nodeId as string | undefined) ?? "",
    instruction: v.instruction,
    facts: (v.facts as Record<string, unknown> | undefined) ?? {},
    tools: tools.tools,
    proposal: null,
    verdict: v.verdict,
    ...(v.finalCall === undefined
      ? {}
      : { finalCall: v.finalCall as { name: string; arguments: Record<string, unknown> } }),
    backend: typeof v.backend === "string" ? v.backend : "",
    latencyMs: 0,
    time: "",
    ...(v.source === undefined ? {} : { source: v.source as ProposalSource }),
  };
  return { format: "trace", trace };
}

function parseChat(v: Record<string, unknown>): ParsedLine {
  const messages = v.messages;
  if (!Array.isArray(messages) || messages.length < 3)
    return issue("messages", "system, user and assistant messages", messages);
  const roles = ["system", "user", "assistant"] as const;
  const picked = [messages[0], messages[messages.length - 2], messages[messages.length - 1]];
  const texts: string[] = [];
  for (const [i, role] of roles.entries()) {
    const m = picked[i];
    const at = `messages[${i === 0 ? 0 : messages.length - 3 + i}]`;
    if (!isRecord(m) || m.role !== role) return issue(`${at}.role`, `"${role}"`, isRecord(m) ? m.role : m);
    if (typeof m.content !== "string") return issue(`${at}.content`, "a string", m.content);
    texts.push(m.content);
  }
  const [system, user, assistant] = texts as [string, string, string];
  const heading = system.indexOf(TOOLS_HEADING);
  if (heading < 0) return issue("messages[0].content", "deputy's system prompt (its Tools: list)", system);
  const lines = system
    .slice(heading + TOOLS_HEADING.length)
    .split("\n")
    .filter((l) => l.trim() !== "" && l !== DECLINE_LINE);
  const listed: unknown[] = [];
  for (const l of lines) {
    try {
      listed.push(JSON.parse(l));
    } catch {
      return issue("messages[0].content", "one tool as JSON a line after Tools:", l);
    }
  }
  const tools = toolSpecs(listed, "messages[0] tools");
  if ("issue" in tools) return tools;
  if (!user.startsWith("Task: ")) return issue("messages[1].content", 'text starting "Task: "', user);
  const task = taskOf(user.slice("Task: ".length));
  let answer: unknown;
  try {
    answer = JSON.parse(assistant);
  } catch {
    return issue("assistant content", 'a JSON call {"name", "arguments"}', assistant);
  }
  const call = callOf(answer, "assistant content", true);
  if ("issue" in call) return call;
  return { format: "chat", decision: { ...task, tools: tools.tools, call: call.call } };
}

/** The instruction and facts of a prompt's user text (`<instruction>\nFacts: <JSON>`, facts optional). */
function taskOf(text: string): Pick<DelegateTask, "instruction" | "facts"> {
  const at = text.lastIndexOf(FACTS);
  if (at >= 0) {
    try {
      const facts: unknown = JSON.parse(text.slice(at + FACTS.length));
      if (isRecord(facts)) return { instruction: text.slice(0, at), facts };
    } catch {
      // not facts: the instruction itself holds the words
    }
  }
  return { instruction: text, facts: {} };
}

function toolSpecs(
  value: unknown,
  field: string,
): { tools: ToolSpec[] } | Extract<ParsedLine, { issue: unknown }> {
  if (!Array.isArray(value) || value.length === 0) return issue(field, "a non-empty array of tools", value);
  const tools: ToolSpec[] = [];
  for (const [i, t] of value.entries()) {
    if (!isRecord(t)) return issue(`${field}[${i}]`, "a tool {name, description, parameters}", t);
    if (typeof t.name !== "string" || t.name === "")
      return issue(`${field}[${i}].name`, "a tool name", t.name);
    if (t.description !== undefined && typeof t.description !== "string")
      return issue(`${field}[${i}].description`, "a string", t.description);
    if (!isRecord(t.parameters))
      return issue(`${field}[${i}].parameters`, "a JSON Schema object", t.parameters);
    tools.push({
      name: t.name,
      description: (t.description as string | undefined) ?? "",
      parameters: t.parameters,
    });
  }
  return { tools };
}

function callOf(
  value: unknown,
  field: string,
  declineAllowed: boolean,
):
  | { call: { name: string | null; arguments: Record<string, unknown> } }
  | Extract<ParsedLine, { issue: unknown }> {
  if (!isRecord(value)) return issue(field, 'a call {"name", "arguments"}', value);
  if (!((typeof value.name === "string" && value.name !== "") || (declineAllowed && value.name === null)))
    return issue(`${field}.name`, declineAllowed ? "a tool name or null" : "a tool name", value.name);
  if (value.arguments !== undefined && !isRecord(value.arguments))
    return issue(`${field}.arguments`, "an object", value.arguments);
  return {
    call: { name: value.name, arguments: (value.arguments as Record<string, unknown> | undefined) ?? {} },
  };
}

function issue(field: string, expected: string, got: unknown): Extract<ParsedLine, { issue: unknown }> {
  return { issue: { field, expected, got } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
