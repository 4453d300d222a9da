import type {
  ChatWrapper,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  Token,
} from "node-llama-cpp";
import { DelegateBackendError, InvalidOptionError } from "../../errors/index.js";
import type { JsonSchema } from "../../schema/json-schema.js";
import { buildPrompt } from "../../runtime/tool-call-prompt.js";
import { buildProposalSchema } from "../proposal-schema.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../protocol.js";
import { NODE_LLAMA_CPP_DIALECT, toGrammarSchema } from "./grammar-schema.js";
import {
  acquireModel,
  importNodeLlamaCpp,
  type NodeLlamaCpp,
  releaseModel,
  resolveModelPath,
} from "./node-llama-cpp-loader.js";
import { parseProposal } from "./parse-proposal.js";
import { SequencePool } from "./sequence-pool.js";
import { abortError } from "./abort-error.js";
import {
  answerConfidenceOfTokens,
  CONFIDENCE_METHODS,
  valueTokens,
} from "../../confidence/answer-confidence.js";
import { localChoiceConfidence, rawGeneratedProbabilities } from "./local-scoring.js";
import { localCacheIdentity, type LocalDelegateOptions } from "./local-cache-identity.js";
import { generateAnswer, type ProbabilityReading, rawProbabilitySupported } from "./local-generation.js";
import { SharedPrefixStates } from "./local-shared-prefix.js";
import { renderPrompt, sharedPrefix } from "./local-prompt.js";
import { answerStructure } from "./local-draft.js";
import { applySelfCheck, selfCheckPrompt, selfCheckScore, selfCheckTask } from "./local-self-check.js";

export type { LocalDecodeInfo, LocalDelegateOptions } from "./local-delegate-options.js";

interface State {
  m: NodeLlamaCpp;
  path: string;
  model: LlamaModel;
  context: LlamaContext;
  pool: SequencePool<LlamaContextSequence>;
  wrapper: ChatWrapper;
  grammars: Map<string, Promise<LlamaGrammar>>;
  /** Shared prompt prefix tokens per system prompt. */
  prefixes: Map<string, Token[]>;
  shared: SharedPrefixStates | undefined;
  /** The self-check's own sequence (with `selfCheck`), so the proposals' cached prefix stays in theirs. */
  checks: SequencePool<LlamaContextSequence> | undefined;
  /** The last answer's tokens: jump-forward drafts the next answer's structure from them (local-draft.ts). */
  previousAnswer: Token[];
}

/**
 * The in-process delegate: llama.cpp through node-llama-cpp (an optional peer dependency, imported on first
 * use). The model is loaded once per process and shared; each delegate has one context with `poolSize`
 * sequences, so concurrent proposals are decoded in the same batches. Decoding is constrained by a grammar built
 * from the proposal schema; the prompt prefix of the previous proposal on a sequence is reused (prefix caching).
 * Confidence is the answer confidence by default (the probability of the answer's value tokens, see
 * answer-confidence.ts), or the chosen tool's probability among the candidates (`confidenceMethod: "choice"`).
 *
 * @example
 * const delegate = new LocalDelegate({ model: "./models/qwen2.5-0.5b-instruct-q4_k_m.gguf", poolSize: 2 });
 * const proposal = await delegate.propose({ instruction: "Triage: disk full", facts: {}, tools });
 * await delegate.close();
 */
export class LocalDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  /** Present when decoding is deterministic (greedy, or a fixed seed): see `local-cache-identity.ts`. */
  readonly cacheIdentity: string | undefined;
  readonly #options: Required<
    Omit<
      LocalDelegateOptions,
      "seed" | "modelsDirectory" | "_internal" | "name" | "declineThreshold" | "selfCheck"
    >
  > & { declineThreshold: number | undefined; selfCheck: number | undefined } & Pick<
      LocalDelegateOptions,
      "seed" | "modelsDirectory" | "_internal"
    >;
  #state: Promise<State> | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: LocalDelegateOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new InvalidOptionError("model", "a GGUF path or model URI", options?.model);
    const positive = (key: string, value: unknown, min = 1) => {
      if (value !== undefined && (!Number.isInteger(value) || (value as number) < min)) {
        throw new InvalidOptionError(key, `an integer >= ${min}`, value);
      }
    };
    positive("poolSize", options.poolSize);
    positive("threads", options.threads, 0);
    positive("contextSize", options.contextSize, 64);
    positive("maxInputChars", options.maxInputChars);
    positive("maxTools", options.maxTools);
    positive("maxOutputTokens", options.maxOutputTokens);
    if (options.confidenceMethod !== undefined && !CONFIDENCE_METHODS.includes(options.confidenceMethod)) {
      throw new InvalidOptionError("confidenceMethod", '"answer" or "choice"', options.confidenceMethod);
    }
    const decline = options.declineThreshold;
    if (
      decline !== undefined &&
      decline !== false &&
      !(typeof decline === "number" && decline >= 0 && decline <= 1)
    ) {
      throw new InvalidOptionError("declineThreshold", "a number from 0 to 1, or false", decline);
    }
    const check = options.selfCheck;
    if (check !== undefined && check !== false && !(typeof check === "number" && check >= 0 && check <= 1)) {
      throw new InvalidOptionError("selfCheck", "a number from 0 to 1, or false", check);
    }
    if (options.temperature !== undefined && !(options.temperature >= 0))
      throw new InvalidOptionError("temperature", "a number >= 0", options.temperature);
    this.name = options.name ?? "local";
    this.maxTools = options.maxTools ?? 5;
    this.maxInputChars = options.maxInputChars ?? 1000;
    this.#options = {
      model: options.model,
      poolSize: options.poolSize ?? 1,
      threads: options.threads ?? 1,
      contextSize: options.contextSize ?? 8192,
      maxInputChars: this.maxInputChars,
      maxTools: this.maxTools,
      maxOutputTokens: options.maxOutputTokens ?? 512,
      temperature: options.temperature ?? 0,
      gpu: options.gpu ?? false,
      confidence: options.confidence ?? true,
      confidenceMethod: options.confidenceMethod ?? "answer",
      tokenProbability: options.tokenProbability ?? false,
      declineThreshold: decline === false ? undefined : decline,
      // More sequences share batches that drafts would push past 3 tokens (see the option): one sequence only.
      jumpForward: options.jumpForward ?? (options.poolSize ?? 1) === 1,
      selfCheck: check === false ? undefined : check,
      sharePrefix: options.sharePrefix ?? true,
      seed: options.seed,
      modelsDirectory: options.modelsDirectory,
      _internal: options._internal,
    };
    this.cacheIdentity = localCacheIdentity(this.#options);
  }

  /** Loads the model and creates the context now instead of on the first proposal. */
  async load(): Promise<void> {
    await this.#ready();
  }

  /** Reports proposal-schema features node-llama-cpp's grammar compiler cannot express. */
  checkSchema(schema: JsonSchema): string | undefined {
    const { issues } = toGrammarSchema(schema, NODE_LLAMA_CPP_DIALECT);
    return issues.length === 0
      ? undefined
      : `node-llama-cpp's JSON-schema grammar cannot express ${issues.join(", ")}`;
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    if (this.#closed) throw new DelegateBackendError(this.name, `${this.name} is closed`);
    const signal = request.signal;
    if (signal?.aborted) throw abortError(this.name, signal);
    const state = await this.#ready();
    const schema = request.schema ?? buildProposalSchema(request.tools);
    const grammar = await this.#grammar(state, schema);
    const { system, turns, user } = buildPrompt(request);
    const promptTokens = renderPrompt(state, system, user, turns);
    const sharedTokens = sharedPrefix(state, system, promptTokens);
    let sequence: LlamaContextSequence;
    try {
      sequence = await state.pool.acquire(signal);
    } catch (cause) {
      throw signal?.aborted
        ? abortError(this.name, signal)
        : new DelegateBackendError(this.name, String(cause), { cause });
    }
    try {
      if (promptTokens.length + this.#options.maxOutputTokens > sequence.contextSize) {
        throw new DelegateBackendError(
          this.name,
          `prompt of ${promptTokens.length} tokens plus ${this.#options.maxOutputTokens} output tokens exceeds the context size ${sequence.contextSize}`,
        );
      }
      const answerMethod = this.#options.confidence && this.#options.confidenceMethod === "answer";
      const wantRaw = this.#options.tokenProbability || answerMethod;
      // The raw probabilities come from the generation itself (greedy), else from one re-read batch after it;
      // the onTokens hook reads probabilities under the grammar instead, and the raw ones by the re-read.
      // The decline threshold is read during greedy decoding too, so it asks for the same reading.
      const declineThreshold = this.#options.declineThreshold;
      // Jump-forward needs the raw reading's own steps, so it takes that path even when nothing reads them.
      const rawSupported = rawProbabilitySupported(state.model, this.#options.temperature);
      const reading: ProbabilityReading = this.#options._internal?.onTokens
        ? "grammar"
        : (wantRaw || declineThreshold !== undefined || this.#options.jumpForward) && rawSupported
          ? "raw"
          : "none";
      const prefix =
        state.shared && sharedTokens.length > 0
          ? await state.shared.prepare(sequence, sharedTokens)
          : ("held" as const);
      const { text, generated, reused, grammarProbabilities, rawProbabilities, declineProbability, stats } =
        await generateAnswer({
          m: state.m,
          model: state.model,
          sequence,
          promptTokens,
          grammar,
          reading,
          temperature: this.#options.temperature,
          seed: this.#options.seed,
          maxOutputTokens: this.#options.maxOutputTokens,
          jumpForward: this.#options.jumpForward,
          previousAnswer: state.previousAnswer,
          openingInPromptBatch: this.#options._internal?.openingInPromptBatch ?? this.#options.poolSize === 1,
          // The mean token probability and the onTokens hook read every token, the closing ones too.
          stopWhenDecided:
            !this.#options._internal?.decodeWholeAnswer &&
            !this.#options.tokenProbability &&
            reading !== "grammar",
          ...(declineThreshold !== undefined ? { declineThreshold } : {}),
          name: this.name,
          signal,
        });
      this.#options._internal?.onDeclineProbability?.(declineProbability);
      const parsed = parseProposal(this.name, text);
      const pieces = generated.map((t) => state.model.detokenize([t]));
      // Its structure only: a value of another item is no guess for this one's.
      state.previousAnswer = answerStructure(generated, valueTokens(pieces));
      this.#options._internal?.onDecode?.({
        ...stats,
        sharedPromptTokens: sharedTokens.length,
        promptTokens: promptTokens.length,
        reusedPromptTokens: reused,
        prefix,
        pieces,
      });
      // The re-read: of every token for the mean, else of the value tokens only.
      const raw =
        reading === "raw"
          ? rawProbabilities
          : wantRaw
            ? await rawGeneratedProbabilities(
                sequence,
                promptTokens,
                generated,
                this.#options.tokenProbability ? undefined : valueTokens(pieces),
              )
            : undefined;
      const meanTokenProbability =
        this.#options.tokenProbability && raw && raw.length > 0
          ? raw.reduce((a, b) => a + b, 0) / raw.length
          : undefined;
      this.#options._internal?.onTokens?.(
        generated.map((_, i) => ({
          piece: pieces[i]!,
          grammar: grammarProbabilities[i] ?? NaN,
          ...(raw ? { raw: raw[i]! } : {}),
        })),
      );
      const confidence = !this.#options.confidence
        ? null
        : this.#options.confidenceMethod === "answer"
          ? answerConfidenceOfTokens(pieces, raw!)
          : await localChoiceConfidence(
              { model: state.model, sequence, promptTokens, generated, text, chosen: parsed.name },
              request.tools.map((t) => t.name),
              this.#options._internal?.onChoiceDistribution,
            );
      const proposal: Proposal = {
        name: parsed.name,
        arguments: parsed.arguments,
        confidence,
        ...(meanTokenProbability !== undefined ? { meanTokenProbability } : {}),
        backend: this.name,
        latencyMs: performance.now() - started,
        usage: {
          inputTokens: promptTokens.length,
          outputTokens: generated.length,
          cachedInputTokens: reused,
        },
      };
      const threshold = this.#options.selfCheck;
      if (threshold === undefined || proposal.name === null) return proposal;
      const score = await this.#selfCheck(state, request, proposal, signal);
      return { ...applySelfCheck(proposal, score, threshold), latencyMs: performance.now() - started };
    } catch (error) {
      if (DelegateBackendError.isInstance(error)) throw error;
      if (signal?.aborted) throw abortError(this.name, signal);
      throw new DelegateBackendError(this.name, `${this.name} failed: ${(error as Error).message}`, {
        cause: error,
      });
    } finally {
      state.pool.release(sequence);
    }
  }

  /** The self-check's score for a call, on the self-check's own sequence. */
  async #selfCheck(
    state: State,
    request: ProposeRequest,
    proposal: Proposal,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const tool = request.tools.find((t) => t.name === proposal.name) ?? { name: proposal.name! };
    const prompt = selfCheckPrompt(
      selfCheckTask(request.instruction, request.facts),
      tool,
      proposal.arguments,
    );
    const sequence = await state.checks!.acquire(signal);
    try {
      if (signal?.aborted) throw abortError(this.name, signal);
      return await selfCheckScore(state.model, state.wrapper, sequence, prompt);
    } finally {
      state.checks!.release(sequence);
    }
  }

  /** Frees the context and (after its last user) the model. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const state = await this.#state?.catch(() => undefined);
      if (!state) return;
      state.pool.close(new DelegateBackendError(this.name, `${this.name} is closed`));
      state.checks?.close(new DelegateBackendError(this.name, `${this.name} is closed`));
      await state.context.dispose();
      state.shared?.close();
      await releaseModel(state.path, this.#options.gpu);
    })();
    return this.#closed;
  }

  #ready(): Promise<State> {
    this.#state ??= this.#load();
    return this.#state.catch((cause: unknown) => {
      throw DelegateBackendError.isInstance(cause)
        ? cause
        : new DelegateBackendError(
            this.name,
            `${this.name} could not load its model: ${(cause as Error).message}`,
            { cause },
          );
    });
  }

  async #load(): Promise<State> {
    const m = await importNodeLlamaCpp();
    const path = await resolveModelPath(this.#options.model, this.#options.modelsDirectory);
    const model = await acquireModel(path, this.#options.gpu);
    try {
      const checking = this.#options.selfCheck !== undefined;
      const context = await model.createContext({
        sequences: this.#options.poolSize + (checking ? 1 : 0),
        contextSize: this.#options.contextSize,
        threads: this.#options.threads,
      });
      const sequences = Array.from({ length: this.#options.poolSize }, () => context.getSequence());
      const wrapper = m.resolveChatWrapper(model);
      return {
        m,
        path,
        model,
        context,
        pool: new SequencePool(sequences),
        checks: checking ? new SequencePool([context.getSequence()]) : undefined,
        wrapper,
        grammars: new Map(),
        prefixes: new Map(),
        previousAnswer: [],
        shared:
          this.#options.sharePrefix && this.#options.poolSize > 1 ? new SharedPrefixStates() : undefined,
      };
    } catch (error) {
      await releaseModel(path, this.#options.gpu);
      throw error;
    }
  }

  #grammar(state: State, schema: JsonSchema): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = state.grammars.get(key);
    if (!grammar) {
      const { schema: gbnf, issues } = toGrammarSchema(schema, NODE_LLAMA_CPP_DIALECT);
      grammar =
        issues.length > 0
          ? Promise.reject(
              new DelegateBackendError(
                this.name,
                `node-llama-cpp's grammar cannot express ${issues.join(", ")}`,
              ),
            )
          : state.model.llama.createGrammarForJsonSchema(gbnf as never);
      if (state.grammars.size >= 64) state.grammars.delete(state.grammars.keys().next().value!);
      state.grammars.set(key, grammar);
    }
    return grammar;
  }
}
