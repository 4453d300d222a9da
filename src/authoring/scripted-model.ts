import { readFileSync } from "node:fs";
import { AISDKError, type LanguageModelV4, type LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { InputFileError } from "../errors/input-file-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";

/**
 * The answers of a scripted model, from a JSON Lines text: each line a JSON string (the model's raw text, sent
 * as it is — which may be anything, JSON or not) or any other JSON value (a structured answer, sent as its JSON
 * text). Blank lines are skipped. A line that is not JSON is a mistake in the script, not a model answer.
 */
export function parseScriptedAnswers(text: string, where: string): string[] {
  const answers: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      throw new InvalidOptionError(
        `${where}:${i + 1}`,
        "a JSON string (the model's raw text) or a JSON object (its structured answer)",
        line,
      );
    }
    answers.push(typeof value === "string" ? value : JSON.stringify(value));
  });
  return answers;
}

/** Reads a scripted model's JSON Lines file (see {@link parseScriptedAnswers}). */
export function readScriptedAnswers(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new InputFileError("SCRIPTED_FILE_NOT_FOUND", `Scripted model file not found: ${path}`, { cause });
  }
  return parseScriptedAnswers(text, path);
}

/**
 * A model that answers each request with the next scripted answer, in order, built on the AI SDK's own mock
 * (`MockLanguageModelV4` from `ai/test`, loaded on first use), so authoring runs through `generateText` exactly
 * as with a provider. Tokens are counted as runs of letters and digits plus every other non-space character.
 * When the answers are used up, the request fails as a provider's would.
 */
export async function scriptedModel(
  answers: readonly string[],
  modelId = "scripted",
): Promise<LanguageModelV4 & { doGenerateCalls: LanguageModelV4CallOptions[] }> {
  const { MockLanguageModelV4 } = await import("ai/test");
  let next = 0;
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId,
    doGenerate: async (call) => {
      const text = answers[next++];
      if (text === undefined)
        throw new AISDKError({
          name: "AI_ScriptedModelError",
          message: `scripted model "${modelId}" has no answer left (it had ${answers.length})`,
        });
      const input = countTokens(JSON.stringify(call.prompt));
      const output = countTokens(text);
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: output, text: output, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

function countTokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}
