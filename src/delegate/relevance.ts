/**
 * The relevance step before a call: how close the task is, in a sentence encoder's space, to the nearest of the
 * candidate tools. Below a threshold the delegate declines without asking the model — the step a small model
 * does badly under a call-shaped grammar (docs/quality.md, "Declining"): it is model-independent, costs one
 * short embedding of the task (the tools' texts are embedded once per tool set and kept), and saves the whole
 * proposal for an item no tool fits.
 */
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { inputChars } from "../runtime/tool-call-prompt.js";
import type { Proposal, ProposeRequest, ToolCallDelegate, ToolSpec } from "./protocol.js";
import type { ProposalRelevance } from "../tools/proposal.js";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { groundedCall, taskText } from "../confidence/proposal-context.js";

/** What the relevance step needs of a sentence encoder (the distill encoder, `GgufTextEncoder`, is one). */
export interface RelevanceEncoder {
  /** One unit-length vector per text, aligned with `texts`; an empty text may get a zero vector. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * Longest task text embedded, in characters: the encoder reads at most 512 tokens anyway, and the instruction
 * (which comes first) is what says what is asked.
 */
const MAX_TASK_CHARS = 2000;

/** A tool as the encoder reads it: the name in words (`get_current_weather` → "get current weather") and its description. */
export function toolRelevanceText(tool: Pick<ToolSpec, "name" | "description">): string {
  const words = tool.name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[._\-/:]+/g, " ")
    .trim()
    .toLowerCase();
  const description = (tool.description ?? "").trim();
  return description ? `${words}: ${description}` : words;
}

/** The task as the encoder reads it: the instruction, then the facts as compact JSON, cut at 2000 characters. */
export function taskRelevanceText(instruction: string, facts: Record<string, unknown>): string {
  const factText = Object.keys(facts).length > 0 ? safeJson(facts) : "";
  const text = factText ? `${instruction}\n${factText}` : instruction;
  if (text.length <= MAX_TASK_CHARS) return text;
  const cut = text.slice(0, MAX_TASK_CHARS);
  // Cut on a code point boundary: half a surrogate pair is not text the tokenizer should see.
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Cosine similarity of two vectors (0 when either is all zeros or they differ in length; never NaN). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  const norm = Math.sqrt(na) * Math.sqrt(nb);
  if (!(norm > 0) || !Number.isFinite(dot / norm)) return 0;
  return Math.max(-1, Math.min(1, dot / norm));
}

/**
 * The task's similarity to its nearest candidate tool. Tools are compared by name and description only:
 * argument names and descriptions were measured to add nothing (docs/quality.md).
 */
export async function relevanceOf(
  encoder: Pick<RelevanceEncoder, "embed">,
  instruction: string,
  facts: Record<string, unknown>,
  tools: readonly Pick<ToolSpec, "name" | "description">[],
): Promise<{ score: number; tool: string }> {
  if (tools.length === 0) return { score: 0, tool: "" };
  const [task, ...toolVectors] = await encoder.embed([
    taskRelevanceText(instruction, facts),
    ...tools.map(toolRelevanceText),
  ]);
  let best = { score: -Infinity, tool: tools[0]!.name };
  tools.forEach((t, i) => {
    const score = cosine(task!, toolVectors[i]!);
    if (score > best.score) best = { score, tool: t.name };
  });
  return best;
}

/** Options of {@link RelevanceDelegate}. */
export interface RelevanceDelegateOptions {
  /** The backend asked when the task is relevant enough. Its name, limits and schema check are kept. */
  inner: ToolCallDelegate;
  /** The sentence encoder, or a function opening it on first use (then closed with the delegate). */
  encoder: RelevanceEncoder | (() => Promise<RelevanceEncoder>);
  /**
   * Decline when the task's similarity to every candidate tool is below this (-1–1). Measured for
   * all-MiniLM-L6-v2 on BFCL in docs/quality.md ("Declining"); there is no default, because the scale is the
   * encoder's own.
   */
  threshold: number;
  /**
   * A second look after the call, for tasks only weakly relevant: when the score is below `below` and the
   * backend's confidence under `minConfidence`, the call is declined too (a made-up call on an unrelated task
   * is where a small model is both off-topic and unsure; measured in docs/quality.md). Proposals without a
   * confidence are left to the gate. Default: none.
   */
  weak?: { below: number; minConfidence: number };
  /**
   * Below `threshold`, ask the backend anyway and keep its call when it is grounded (every argument value spelled
   * out in the task or listed by an `enum` of the tool's schema: a model that makes up a call invents its values)
   * or its confidence is at least `sure`;
   * decline it otherwise. A grounded call is spared the second look (`weak`) too. Without it, a task below the
   * threshold is declined before the backend is asked. The encoder alone declined a fifth of real users'
   * questions a tool fits (BFCL's live_simple, worded unlike the questions the threshold was measured on);
   * measured in docs/quality.md. Default: none.
   */
  sure?: number;
}

/**
 * A relevance step in front of any backend: the task is compared with the candidate tools by a sentence
 * encoder, and below `threshold` the answer is a decline (the gate's `declined` verdict) without asking the
 * backend; otherwise the backend's proposal. Every proposal carries its `relevance` (score, threshold, the
 * nearest tool), so a trace says why it was declined.
 *
 * @example
 * const encoder = await GgufTextEncoder.open(path); // deputy-js/distill
 * const delegate = new RelevanceDelegate({ inner: new LocalDelegate({ model }), encoder, threshold: 0.42 });
 */
export class RelevanceDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly #inner: ToolCallDelegate;
  readonly #threshold: number;
  readonly #weak: { below: number; minConfidence: number } | undefined;
  readonly #sure: number | undefined;
  readonly #open: (() => Promise<RelevanceEncoder>) | undefined;
  #encoder: Promise<RelevanceEncoder> | undefined;
  #closed = false;

  constructor(options: RelevanceDelegateOptions) {
    const { inner, encoder, threshold } = options;
    if (!(typeof threshold === "number" && threshold >= -1 && threshold <= 1)) {
      throw new InvalidOptionError("threshold", "a number from -1 to 1", threshold);
    }
    const weak = options.weak;
    if (weak !== undefined) {
      if (!(typeof weak.below === "number" && weak.below >= -1 && weak.below <= 1))
        throw new InvalidOptionError("weak.below", "a number from -1 to 1", weak.below);
      if (!(typeof weak.minConfidence === "number" && weak.minConfidence >= 0 && weak.minConfidence <= 1))
        throw new InvalidOptionError("weak.minConfidence", "a number from 0 to 1", weak.minConfidence);
    }
    const sure = options.sure;
    if (sure !== undefined && !(typeof sure === "number" && sure >= 0 && sure <= 1))
      throw new InvalidOptionError("sure", "a number from 0 to 1", sure);
    this.#inner = inner;
    this.#sure = sure;
    this.#threshold = threshold;
    this.#weak = weak;
    this.name = inner.name;
    this.maxTools = inner.maxTools;
    this.maxInputChars = inner.maxInputChars;
    if (typeof encoder === "function") this.#open = encoder;
    else this.#encoder = Promise.resolve(encoder);
  }

  checkSchema(schema: JsonSchema): string | undefined {
    return this.#inner.checkSchema?.(schema);
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    // The inner backend refuses too long an input itself; the step must not spend an embedding on it first.
    if (inputChars(request.instruction, request.facts) > this.maxInputChars)
      return this.#inner.propose(request);
    let found: { score: number; tool: string };
    try {
      found = await relevanceOf(await this.#ready(), request.instruction, request.facts, request.tools);
    } catch (cause) {
      // A missing or failing encoder is this backend failing: the gate's backend_error, not a crashed run.
      if (DelegateBackendError.isInstance(cause)) throw cause;
      throw new DelegateBackendError(this.name, `relevance encoder: ${(cause as Error).message}`, { cause });
    }
    const { score, tool } = found;
    const relevance: ProposalRelevance = { score, threshold: this.#threshold, tool };
    if (score < this.#threshold && this.#sure === undefined) {
      return {
        name: null,
        arguments: {},
        // The model was not asked: there is no probability to report, and none is made up.
        confidence: null,
        backend: this.name,
        latencyMs: performance.now() - started,
        relevance,
      };
    }
    const proposal = await this.#inner.propose(request);
    const latencyMs = () => performance.now() - started;
    if (proposal.name === null) return { ...proposal, relevance, latencyMs: latencyMs() };
    // The call's own confidence: a backend's self-check has already lowered `confidence` by its own score,
    // and the second look is measured on the call's (docs/quality.md, "The self-check").
    const callConfidence = proposal.selfCheck ? proposal.selfCheck.callConfidence : proposal.confidence;
    const sure = this.#sure;
    const schema = request.tools.find((t) => t.name === proposal.name)?.parameters;
    const grounded = sure !== undefined && groundedCall(taskText(request), proposal.arguments, schema);
    const decline = (why: Partial<ProposalRelevance>): Proposal => ({
      ...proposal,
      name: null,
      arguments: {},
      // The call's confidence is not the decline's: it moves into the record of why.
      confidence: null,
      relevance: { ...relevance, ...why },
      latencyMs: latencyMs(),
    });
    if (sure !== undefined && score < this.#threshold) {
      const asked = { sure, grounded, confidence: callConfidence };
      if (grounded || (callConfidence !== null && callConfidence >= sure))
        return { ...proposal, relevance: { ...relevance, asked }, latencyMs: latencyMs() };
      return decline({ asked: { ...asked, declined: proposal.name } });
    }
    const weak = this.#weak;
    if (
      weak &&
      !grounded &&
      score < weak.below &&
      callConfidence !== null &&
      callConfidence < weak.minConfidence
    )
      return decline({ weak: { ...weak, declined: proposal.name, confidence: callConfidence } });
    return { ...proposal, relevance, latencyMs: latencyMs() };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const opened = this.#open ? this.#encoder : undefined;
    await this.#inner.close();
    if (opened) await (await opened.catch(() => undefined))?.close();
  }

  #ready(): Promise<RelevanceEncoder> {
    if (!this.#encoder) {
      const opening = this.#open!();
      // A failed open is retried by the next proposal instead of failing every later one.
      opening.catch(() => (this.#encoder = undefined));
      this.#encoder = opening;
    }
    return this.#encoder;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    // Facts are plain JSON in a plan; anything else (a cycle from library code) is left out, not fatal.
    return "";
  }
}
