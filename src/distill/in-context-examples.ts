import { canonicalJson } from "../runtime/canonical-json.js";
import { exampleChars, inputChars, type WorkedExample } from "../runtime/tool-call-prompt.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../delegate/protocol.js";
import { defaultRedactor, type Redactor } from "../traces/redact.js";
import type { DelegateTrace } from "../traces/trace.js";
import { EmbeddingBatcher } from "./embedding-batcher.js";
import { commonPrefix, encoderText } from "./encoder-input.js";
import type { TextEncoder } from "./text-encoder.js";
import type { TrainingExample } from "./training-examples.js";
import { examplesFromTraces } from "./training-examples.js";

/** Options of {@link withExamples}. */
export interface ExamplesOptions {
  /**
   * The team's decisions: labelled examples for every node (`TrainingExample`s: accepted proposals, people's
   * resolutions, rows a user labelled), or traces, read per node as `deputy distill` reads them (accepted calls and
   * people's declines of that node).
   */
  source: { examples: readonly TrainingExample[] } | { traces: readonly DelegateTrace[] };
  /** The sentence encoder that chooses them (e.g. `GgufTextEncoder` on all-MiniLM-L6-v2). */
  encoder: TextEncoder;
  /** How many examples a proposal is shown at most. Default 4. */
  k?: number;
  /** The redactor an example passes before it is shown; one it changes is left out. Default: deputy's. */
  redactor?: Redactor;
  /** Close the encoder with the delegate (when it was opened for this delegate alone). Default false. */
  closeEncoder?: boolean;
}

interface Candidate {
  example: WorkedExample;
  key: string;
  tools: Set<string>;
  vector: Float32Array;
  chars: number;
}

interface NodeBank {
  prefix: string;
  candidates: Candidate[];
}

/**
 * A delegate that shows the model the k past decisions most like the task before it asks: the in-context
 * examples of issue 23. They are chosen by the sentence encoder (cosine similarity of the task and facts to
 * each example's) and sent as prior exchanges after the tools' part of the prompt, so that part stays the prefix
 * every item shares (`buildPrompt`). Never shown: an example with the very input being decided (an item is never
 * its own example, in this run or a later one), one whose call names a tool the node does not offer, and one the
 * redactor changes (a secret in a labelled row stays out of every prompt, as it stays out of traces). Examples
 * are added most similar first while the task and the examples together fit the backend's `maxInputChars`.
 *
 * @example
 * const encoder = await GgufTextEncoder.open(encoderPath);
 * const { traces } = readTraces(".deputy/alert-traces.jsonl");
 * const delegate = withExamples(new LocalDelegate({ model }), { source: { traces }, encoder, k: 4 });
 */
export function withExamples(inner: ToolCallDelegate, options: ExamplesOptions): ToolCallDelegate {
  const k = options.k ?? 4;
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a whole number ≥ 0, got ${String(k)}`);
  const redactor = options.redactor ?? defaultRedactor;
  const batcher = new EmbeddingBatcher(options.encoder);
  const banks = new Map<string, Promise<NodeBank>>();

  function examplesOf(nodeId: string): readonly TrainingExample[] {
    const source = options.source;
    return "examples" in source ? source.examples : examplesFromTraces(source.traces, nodeId).examples;
  }

  function bankFor(nodeId: string): Promise<NodeBank> {
    let bank = banks.get(nodeId);
    if (!bank) {
      bank = buildBank(examplesOf(nodeId), options.encoder, redactor);
      bank.catch(() => banks.delete(nodeId));
      banks.set(nodeId, bank);
    }
    return bank;
  }

  return {
    name: inner.name,
    maxTools: inner.maxTools,
    maxInputChars: inner.maxInputChars,
    async propose(request: ProposeRequest): Promise<Proposal> {
      if (k === 0) return inner.propose(request);
      const bank = await bankFor(request.context?.nodeId ?? "");
      if (bank.candidates.length === 0) return inner.propose(request);
      const key = inputKey(request.instruction, request.facts);
      const offered = new Set(request.tools.map((t) => t.name));
      const vector = await batcher.embed(embedText(request.instruction, request.facts, bank.prefix));
      const scored: { c: Candidate; s: number }[] = [];
      for (const c of bank.candidates) {
        if (c.key === key || ![...c.tools].every((t) => offered.has(t))) continue;
        scored.push({ c, s: dot(vector, c.vector) });
      }
      scored.sort((a, b) => b.s - a.s);
      let room = inner.maxInputChars - inputChars(request.instruction, request.facts);
      const chosen: { c: Candidate; s: number }[] = [];
      for (const entry of scored) {
        if (chosen.length === k) break;
        if (entry.c.chars > room) continue;
        room -= entry.c.chars;
        chosen.push(entry);
      }
      if (chosen.length === 0) return inner.propose(request);
      const proposal = await inner.propose({ ...request, examples: chosen.map((e) => e.c.example) });
      return { ...proposal, examples: chosen.map((e) => Math.round(e.s * 1000) / 1000) };
    },
    close: async () => {
      await Promise.allSettled([inner.close(), options.closeEncoder ? options.encoder.close() : undefined]);
    },
    ...(inner.checkSchema ? { checkSchema: (schema) => inner.checkSchema!(schema) } : {}),
  };
}

async function buildBank(
  examples: readonly TrainingExample[],
  encoder: TextEncoder,
  redactor: Redactor,
): Promise<NodeBank> {
  const kept: { example: WorkedExample; key: string }[] = [];
  const seen = new Set<string>();
  for (const e of examples) {
    const example: WorkedExample = { instruction: e.instruction, facts: e.facts, call: e.call };
    if (!unchangedByRedaction(example, e, redactor)) continue;
    const key = inputKey(e.instruction, e.facts);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ example, key });
  }
  const prefix = commonPrefix(kept.map((e) => e.example.instruction));
  const vectors = await encoder.embed(
    kept.map((e) => embedText(e.example.instruction, e.example.facts, prefix)),
  );
  return {
    prefix,
    candidates: kept.map((e, i) => ({
      ...e,
      tools: new Set(e.example.call.name === null ? [] : [e.example.call.name]),
      vector: vectors[i]!,
      chars: exampleChars(e.example),
    })),
  };
}

/** Whether the redactor leaves an example as it is (one it would change carries a secret, or looks like one). */
function unchangedByRedaction(example: WorkedExample, source: TrainingExample, redactor: Redactor): boolean {
  const trace = {
    instruction: example.instruction,
    facts: example.facts,
    finalCall: example.call,
    tools: source.tools,
    verdict: "accepted",
  } as unknown as DelegateTrace;
  const out = redactor.redactTrace(trace);
  return (
    out.instruction === example.instruction &&
    canonicalJson(out.facts) === canonicalJson(example.facts) &&
    canonicalJson(out.finalCall) === canonicalJson(example.call)
  );
}

function inputKey(instruction: string, facts: Record<string, unknown>): string {
  return `${instruction}\u0000${canonicalJson(facts)}`;
}

/** What is embedded: the instruction without the template's shared opening, then the facts' values. */
function embedText(instruction: string, facts: Record<string, unknown>, prefix: string): string {
  const values = Object.keys(facts)
    .sort()
    .map((key) => `${key}: ${typeof facts[key] === "string" ? facts[key] : canonicalJson(facts[key])}`);
  return [encoderText(instruction, prefix), ...values].join("\n");
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
