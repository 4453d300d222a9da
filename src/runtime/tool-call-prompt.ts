import type { DelegateTask } from "../records/delegate-task.js";
import type { CallOrDecline } from "../records/hop.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import { canonicalJson } from "./canonical-json.js";

/**
 * A past decision shown to the model as a worked example: what a node was asked and the call that was right
 * (`name: null`: declining was right). deputy-js/distill's `withExamples` chooses them from a team's decisions.
 */
export interface WorkedExample extends Pick<DelegateTask, "instruction" | "facts"> {
  call: CallOrDecline;
}

/** What {@link buildPrompt} needs. */
export interface PromptInput extends DelegateTask {
  /** Worked examples, most similar first; each becomes a prior user/assistant exchange. */
  examples?: readonly WorkedExample[];
}

/** One worked example as a prior exchange: the task as the user wrote it, the call as the assistant answered. */
export interface PromptTurn {
  user: string;
  assistant: string;
}

/**
 * A prompt in parts: `system` depends only on the tools, `turns` on the worked examples (none when there are
 * none), `user` only on the instruction and facts. Backends send them in that order.
 */
export interface DelegatePrompt {
  system: string;
  turns: PromptTurn[];
  user: string;
}

const RULES = [
  "You choose exactly one tool call for the task below, or decline.",
  'Answer with one JSON object and nothing else: {"name": "<tool name>", "arguments": {...}}.',
  'If no tool fits the task, or a required argument cannot be taken from the task or its facts, decline: {"name": null}.',
  "Use only the tool names listed here and only the argument keys each tool's parameters declare. Never invent a name, a key or a value.",
  "Take argument values from the task and the facts.",
].join("\n");

/**
 * The decline, listed after the candidate tools in the same shape as a tool, so the model weighs "none of these"
 * as one more option instead of a rule it reads once. Measured on BFCL irrelevance (docs/quality.md,
 * "Declining"): with the rule alone Qwen2.5-Coder gave `null` a probability under 1 % at the answer's choice
 * point; listed like this it becomes a real candidate, and `LocalDelegate`'s `declineThreshold` reads it.
 */
export const DECLINE_LINE = JSON.stringify({
  name: null,
  description:
    "None of the other tools does what the task asks (or a required argument is missing from the task and its facts): decline.",
});

/**
 * The prompt every backend sends for a proposal (chat backends as a system and a user message; completion
 * backends can join them). It is deterministic, so a backend can cache the prefix:
 *
 * - `system`: the rules (one call or a decline; never invent names or keys), then the candidate tools, one per
 *   line, as `{"name", "description", "parameters"}` JSON in the node's order, then the decline as a last
 *   option in the same shape ({@link DECLINE_LINE}). It depends on the tools only, so every proposal of a node
 *   (every for_each item) shares it.
 * - `turns`: each worked example as a prior exchange — the example's task written as `user` is, and its call
 *   as the answer's JSON — least similar first, so the most similar stands next to the question. They come
 *   after `system`, so the tools' part stays the prefix every item shares.
 * - `user`: `Task: <instruction>`, then `Facts: <facts as JSON with sorted keys>` when there are facts.
 *
 * @example
 * const { system, user } = buildPrompt({ instruction: "Triage: disk full", facts: { severity: "high" }, tools });
 */
export function buildPrompt({ instruction, facts, tools, examples }: PromptInput): DelegatePrompt {
  return {
    system: systemPrompt(tools),
    turns: (examples ?? [])
      .map((e) => ({ user: userPrompt(e.instruction, e.facts), assistant: answerText(e.call) }))
      .reverse(),
    user: userPrompt(instruction, facts),
  };
}

/** A call as the model is asked to answer it (the grammar's shape: `name` first, then `arguments`). */
function answerText(call: WorkedExample["call"]): string {
  return JSON.stringify({ name: call.name, arguments: call.arguments });
}

const systemCache = new Map<string, string>();
const lineCache = new WeakMap<object, Map<string, { id: number; line: string }>>();
let nextLineId = 0;

/** One tool's line and a short id for it, cached per parameters object (tools keep theirs) and name + description. */
function toolLine(t: ToolSpec): { id: number; line: string } {
  let byText = lineCache.get(t.parameters);
  if (!byText) lineCache.set(t.parameters, (byText = new Map()));
  const text = `${t.name}\u0000${t.description}`;
  let entry = byText.get(text);
  if (entry === undefined) {
    entry = {
      id: nextLineId++,
      line: JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }),
    };
    byText.set(text, entry);
  }
  return entry;
}

function systemPrompt(tools: ToolSpec[]): string {
  const lines = tools.map(toolLine);
  const key = lines.map((l) => l.id).join(",");
  let text = systemCache.get(key);
  if (text === undefined) {
    text = `${RULES}\n\nTools:\n${lines.map((l) => l.line).join("\n")}\n${DECLINE_LINE}`;
    if (systemCache.size > 256) systemCache.clear();
    systemCache.set(key, text);
  }
  return text;
}

function userPrompt(instruction: string, facts: Record<string, unknown>): string {
  return Object.keys(facts).length === 0
    ? `Task: ${instruction}`
    : `Task: ${instruction}\nFacts: ${canonicalJson(facts)}`;
}

/**
 * How long an input is for the gate's `input_too_long` check: the instruction's length plus the length of the
 * facts as sorted JSON (what the prompt carries, without the fixed labels).
 */
export function inputChars(instruction: string, facts: Record<string, unknown>): number {
  return instruction.length + canonicalJson(facts).length;
}

/** How long a worked example is, counted like {@link inputChars} plus its call's JSON. */
export function exampleChars(example: WorkedExample): number {
  return inputChars(example.instruction, example.facts) + answerText(example.call).length;
}
