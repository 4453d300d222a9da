/**
 * Relevance probes on BFCL: for each case, the probability a model gives that one of the offered tools fits,
 * read from one prompt evaluation (no generation), for several phrasings at once (they share deputy's system
 * prompt and the task as a cached prefix). One JSON line per case to `--out` (resumable). Used to choose how
 * deputy asks before a call (docs/quality.md, "Declining").
 *
 *   node --import tsx bench/quality-relevance.ts --model FILE.gguf --out probes.jsonl [--limit 20] [--threads 1]
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { getLlama, type LlamaContextSequence, type Token } from "node-llama-cpp";
import { buildPrompt } from "../src/runtime/tool-call-prompt.js";
import { bfclQuestion, bfclToToolSpec } from "../src/eval/bfcl.js";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import { interleave, recordedIds } from "./quality-cases.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    out: { type: "string" },
    suite: { type: "string", default: "test/fixtures/bfcl" },
    limit: { type: "string", default: "20" },
    threads: { type: "string", default: "1" },
    offset: { type: "string", default: "0" },
  },
});
if (!values.model || !values.out) {
  console.error("usage: quality-relevance.ts --model FILE --out FILE [--limit N]");
  process.exit(2);
}
const out = values.out;
const done = recordedIds(out);

/** deputy's rules today (tool-call-prompt.ts) and candidate rewrites, each followed by the same tool lines. */
const TODAY = [
  "You choose exactly one tool call for the task below, or decline.",
  'Answer with one JSON object and nothing else: {"name": "<tool name>", "arguments": {...}}.',
  'If no tool fits the task, or a required argument cannot be taken from the task or its facts, decline: {"name": null}.',
  "Use only the tool names listed here and only the argument keys each tool's parameters declare. Never invent a name, a key or a value.",
  "Take argument values from the task and the facts.",
].join("\n");
// The first wording of the decline line, as probed; tool-call-prompt.ts's DECLINE_LINE adds "from the task and
// its facts" to the parenthesis.
const NONE_LINE = JSON.stringify({
  name: null,
  description:
    "None of the other tools does what the task asks (or a required argument is missing): decline.",
});
const toolLines = (tools: { name: string; description: string; parameters: unknown }[]) =>
  tools
    .map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }))
    .join("\n");
const SYSTEMS: Record<string, (lines: string) => string> = {
  today: (l) => `${TODAY}\n\nTools:\n${l}`,
  noneTool: (l) => `${TODAY}\n\nTools:\n${l}\n${NONE_LINE}`,
};
const QUESTION =
  "Can one of the tools above do this task, with every required argument taken from the task? Answer yes or no.";

const cases = interleave(bfclCases(loadBfclSuite(values.suite!, { limit: Number(values.limit) })))
  .slice(Number(values.offset))
  .filter((c) => !done.has(c.sample.id));
const llama = await getLlama({ gpu: false });
const model = await llama.loadModel({ modelPath: values.model });
const context = await model.createContext({ contextSize: 8192, threads: Number(values.threads) });
const sequence = context.getSequence();
const wrapper = (await import("node-llama-cpp")).resolveChatWrapper(model);

/** Tokens of the chat (system, user, empty model turn) plus an optional start of the model's answer. */
function chatTokens(system: string, user: string, answerPrefix = ""): Token[] {
  const { contextText } = wrapper.generateContextState({
    chatHistory: [
      { type: "system", text: system },
      { type: "user", text: user },
      { type: "model", response: [] },
    ],
  });
  return [...contextText.tokenize(model.tokenizer), ...model.tokenize(answerPrefix, false)] as Token[];
}

/** The next-token distribution (top 40, raw) after `tokens`, reusing what the sequence already holds. */
async function nextProbabilities(seq: LlamaContextSequence, tokens: Token[]): Promise<Map<Token, number>> {
  const reused = Math.min(seq.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
  if (reused < seq.nextTokenIndex) {
    await seq.eraseContextTokenRanges([{ start: reused, end: seq.nextTokenIndex }]);
  }
  const input = tokens.slice(reused);
  const items = input.map((t, i) =>
    i === input.length - 1
      ? ([
          t,
          { generateNext: { probabilities: true, options: { temperature: 1, topK: 40, topP: 1, minP: 0 } } },
        ] as const)
      : t,
  );
  const result = await seq.controlledEvaluate(items as never);
  return new Map(result[input.length - 1]?.next.probabilities ?? []);
}

/** P(yes) / (P(yes) + P(no)) over the tokens that read "yes" / "no" (any case, any leading space). */
function yesShare(p: Map<Token, number>): { yes: number; no: number } {
  let yes = 0;
  let no = 0;
  for (const [t, v] of p) {
    const text = model.detokenize([t]).trim().toLowerCase();
    if (text === "yes") yes += v;
    else if (text === "no") no += v;
  }
  return { yes, no };
}

/** P(null) / (P(null) + P(string)) at the answer's decision point, after `{"name":`. */
function nullShare(p: Map<Token, number>): number {
  let pNull = 0;
  let pString = 0;
  for (const [t, v] of p) {
    const text = model.detokenize([t]).trimStart();
    if (text.startsWith("n")) pNull += v;
    else if (text.startsWith('"')) pString += v;
  }
  return pNull / (pNull + pString || 1);
}

for (const c of cases) {
  const tools = c.sample.function.map(bfclToToolSpec);
  const instruction = bfclQuestion(c.sample);
  const started = performance.now();
  const { user } = buildPrompt({ instruction, facts: {}, tools });
  const lines = toolLines(tools);
  const record: Record<string, unknown> = { id: c.sample.id, category: c.category, tools: tools.length };
  for (const [key, system] of Object.entries(SYSTEMS)) {
    const s = system(lines);
    record[key] = nullShare(await nextProbabilities(sequence, chatTokens(s, user, '{"name":')));
    {
      const { yes, no } = yesShare(
        await nextProbabilities(sequence, chatTokens(s, `${user}\n\n${QUESTION}`)),
      );
      record[`${key}Yes`] = yes / (yes + no || 1);
    }
  }
  record.latencyMs = performance.now() - started;
  appendFileSync(out, JSON.stringify(record) + "\n");
  console.error(JSON.stringify(record));
}
await context.dispose();
await model.dispose();
