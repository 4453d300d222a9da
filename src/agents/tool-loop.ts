import type {
  JSONValue,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
} from "@ai-sdk/provider";
import type { JsonSchema } from "../schema/json-schema.js";
import type { ResolvedBackend } from "./backend.js";
import { generate, type CallOptions } from "./language-model.js";
import { normalizeUsage, type Usage } from "./usage.js";

/** A tool choice for one step: the provider specification's values. */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; toolName: string };

/** A tool as the loop runs it. `execute` returns what the model reads (any JSON value). */
export interface LoopTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  execute(args: unknown, toolCallId: string, signal: AbortSignal): Promise<unknown>;
}

/** One model request and the tool calls it led to. */
export interface StepRecord {
  stepNumber: number;
  text: string;
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  toolResults: { toolCallId: string; toolName: string; output: unknown }[];
  usage: Usage;
  finishReason: string;
}

/** Options of {@link runToolLoop}. */
export interface ToolLoopOptions {
  backend: ResolvedBackend;
  prompt: LanguageModelV4Message[];
  tools: LoopTool[];
  /** A choice for every step, or a function of the step number. Default `"auto"`. */
  toolChoice?: ToolChoice | ((step: { stepNumber: number }) => ToolChoice);
  /** Model requests at most (the tool calls of the last one still run). */
  maxSteps: number;
  responseFormat?: CallOptions["responseFormat"];
  signal: AbortSignal;
  /** Called after each model request, before its tool calls run (ledgers must see the spend first). */
  onStepUsage(usage: Usage): void;
}

/** What the loop ended with. */
export interface ToolLoopResult {
  text: string;
  steps: StepRecord[];
  usage: Usage;
  /** `"stop"` and friends from the provider, or `"max-steps"` when the loop ran out of steps. */
  finishReason: string;
}

/**
 * The tool loop, owned step by step on top of the provider specification (`doGenerate`): request, run the tool
 * calls one at a time (budgets are checked before each), feed the results back, until the model answers
 * without calling a tool or `maxSteps` is reached.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const { backend, tools, signal } = options;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const specs: LanguageModelV4FunctionTool[] = tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    inputSchema: t.parameters as LanguageModelV4FunctionTool["inputSchema"],
  }));
  const prompt = [...options.prompt];
  const steps: StepRecord[] = [];
  const total: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (let stepNumber = 0; stepNumber < options.maxSteps; stepNumber++) {
    signal.throwIfAborted();
    const choice =
      typeof options.toolChoice === "function"
        ? options.toolChoice({ stepNumber })
        : (options.toolChoice ?? "auto");
    const call: CallOptions = {
      ...backend.settings,
      prompt: [...prompt],
      abortSignal: signal,
      ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
      ...(specs.length > 0
        ? { tools: specs, toolChoice: typeof choice === "string" ? { type: choice } : choice }
        : {}),
    };
    const result = await generate(backend.model, call);
    const usage = normalizeUsage(result.usage);
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.totalTokens += usage.totalTokens;
    options.onStepUsage(usage);
    const text = result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
    const calls: LanguageModelV4ToolCallPart[] = [];
    for (const part of result.content) {
      if (part.type === "tool-call" && !part.providerExecuted) {
        calls.push({
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: parseInput(part.input),
        });
      }
    }
    const finishReason = readFinishReason(result.finishReason);
    const plain = calls.map((c) => ({
      ...c,
      input: c.input instanceof UnparsedInput ? c.input.raw : c.input,
    }));
    const record: StepRecord = {
      stepNumber,
      text,
      toolCalls: plain.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
      toolResults: [],
      usage,
      finishReason,
    };
    steps.push(record);
    if (calls.length === 0) {
      // v4: a provider that drafts before its final answer names the text to parse as structured output.
      const structured = options.responseFormat?.type === "json" ? result.structuredOutputText : undefined;
      return { text: structured ?? text, steps, usage: total, finishReason };
    }
    prompt.push({
      role: "assistant",
      content: [...(text ? [{ type: "text" as const, text }] : []), ...plain],
    });
    const results: LanguageModelV4ToolResultPart[] = [];
    for (const tc of calls) {
      const output = await executeCall(byName, tc, signal);
      record.toolResults.push({ toolCallId: tc.toolCallId, toolName: tc.toolName, output });
      results.push({
        type: "tool-result",
        toolCallId: tc.toolCallId,
        toolName: tc.toolName,
        output:
          typeof output === "string"
            ? { type: "text", value: output }
            : { type: "json", value: (output ?? null) as JSONValue },
      });
    }
    prompt.push({ role: "tool", content: results });
  }
  return { text: steps.at(-1)?.text ?? "", steps, usage: total, finishReason: "max-steps" };
}

async function executeCall(
  byName: Map<string, LoopTool>,
  call: LanguageModelV4ToolCallPart,
  signal: AbortSignal,
): Promise<unknown> {
  const tool = byName.get(call.toolName);
  if (!tool) {
    return {
      error: "unknown_tool",
      message: `There is no tool \`${call.toolName}\`. Available: ${[...byName.keys()].join(", ") || "none"}.`,
    };
  }
  if (call.input instanceof UnparsedInput) {
    return {
      error: "invalid_arguments",
      issues: [`(root): arguments are not valid JSON: ${call.input.raw.slice(0, 200)}`],
    };
  }
  return tool.execute(call.input, call.toolCallId, signal);
}

/** Arguments a model produced that are not JSON (kept so the tool can report them). */
class UnparsedInput {
  constructor(readonly raw: string) {}
}

function parseInput(input: unknown): unknown {
  if (typeof input !== "string") return input;
  if (input.trim() === "") return {};
  try {
    return JSON.parse(input);
  } catch {
    return new UnparsedInput(input);
  }
}

function readFinishReason(reason: unknown): string {
  if (typeof reason === "string") return reason;
  if (reason && typeof reason === "object" && typeof (reason as { unified?: unknown }).unified === "string")
    return (reason as { unified: string }).unified;
  return "other";
}
