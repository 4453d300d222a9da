import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { readScriptedAnswers, scriptedModel } from "./scripted-model.js";

/** A model named on the command line, ready to author with. */
export interface ModelFromSpec {
  model: LanguageModelV4;
  /** The spec as it may be recorded with a run: files absolute, no credentials. */
  label: string;
}

const EXPECTED = "`scripted=FILE` or `openai=URL[,model=NAME]`";

/**
 * The one parser of `--model SPEC` for commands that ask a model to write a plan:
 *
 * - `scripted=FILE` — a JSON Lines file of answers, used in order (see `parseScriptedAnswers`);
 * - `openai=URL[,model=NAME]` — an OpenAI-compatible `/v1` server (llama-server, Ollama, vLLM, a hosted API)
 *   through `@ai-sdk/openai-compatible`, loaded only then; structured output goes to it as a `json_schema`
 *   response format. The key, when the server needs one, comes from `$OPENAI_API_KEY` (never from the spec, so
 *   it is never recorded). `model` defaults to `default` (what llama-server answers to).
 */
export async function modelFromSpec(spec: string): Promise<ModelFromSpec> {
  const eq = spec.indexOf("=");
  const kind = eq < 0 ? spec : spec.slice(0, eq);
  const value = eq < 0 ? "" : spec.slice(eq + 1);
  if (kind === "scripted" && value !== "") {
    const path = resolve(value);
    return { model: await scriptedModel(readScriptedAnswers(path), path), label: `scripted=${path}` };
  }
  if (kind === "openai" && value !== "") return openAiModel(spec, value);
  throw new InvalidOptionError("--model", EXPECTED, spec);
}

async function openAiModel(spec: string, value: string): Promise<ModelFromSpec> {
  const [rawUrl = "", ...options] = value.split(",");
  let name = "default";
  for (const option of options) {
    const [key, v] = option.split("=", 2);
    if (key === "model" && v) name = v;
    else throw new InvalidOptionError("--model", `${EXPECTED} (unknown option ${JSON.stringify(key)})`, spec);
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new InvalidOptionError("--model", `${EXPECTED} with an http(s) URL`, spec);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || existsSync(rawUrl))
    throw new InvalidOptionError("--model", `${EXPECTED} with an http(s) URL`, spec);
  if (url.username || url.password)
    throw new InvalidOptionError(
      "--model",
      `${EXPECTED} without credentials in the URL (use $OPENAI_API_KEY)`,
      spec,
    );
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: url.href.replace(/\/$/, ""),
    includeUsage: true,
    supportsStructuredOutputs: true,
    ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
  });
  return { model: provider.chatModel(name), label: `openai=${url.href.replace(/\/$/, "")},model=${name}` };
}
