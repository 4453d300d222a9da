import { createHash } from "node:crypto";
import type { JsonSchema } from "../../schema/json-schema.js";
import { canonicalJson } from "../../runtime/canonical-json.js";
import { systemClock, type Clock } from "../../runtime/clock.js";
import { redactRecord } from "../../runtime/redact-value.js";
import type { RunStore } from "../../store/run-store.js";
import type { Proposal, ProposalTrust, ProposeRequest, ToolCallDelegate } from "../protocol.js";
import { ProposalLru } from "./proposal-lru.js";

/** Options of {@link CachedDelegate}. */
export interface CachedDelegateOptions {
  /**
   * A run store whose cache table keeps proposals too, so another process, a resume or a second run on the same
   * store reuses them. Default: none (the in-process cache only).
   */
  store?: Pick<RunStore, "getCached" | "putCached"> | undefined;
  /** Proposals the in-process cache keeps (least recently used go first). Default 1000. */
  maxEntries?: number;
  /** @internal The clock of stored entries (tests). */
  _internal?: { now?: Clock };
}

/** The in-process cache of each backend, shared by every wrapper of it (one per run). */
const lrus = new WeakMap<ToolCallDelegate, ProposalLru>();

/**
 * A delegate level that reuses proposals: a backend whose decoding is deterministic (it has a `cacheIdentity`)
 * gives the same proposal for the same rendered task (instruction and facts), candidate tools (their
 * definitions), proposal schema and worked examples, so the proposal is asked for once and then reused — from
 * an in-process LRU per backend, then from the run store's cache table (`store`), which outlives the process.
 * A reused proposal is marked `cached: true` (traced with it) and judged by the accept gate like a fresh one, so
 * a changed `min_confidence` or guard applies. A backend without a `cacheIdentity` (sampling without a fixed
 * seed, a model behind a URL) is asked every time: {@link cacheProposals} does not wrap it.
 *
 * @example
 * const delegate = cacheProposals(new DistilledDelegate({ model: "model.json" }), { store });
 */
export class CachedDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly cacheIdentity: string;
  readonly checkSchema?: (schema: JsonSchema) => string | undefined;
  readonly trust?: ProposalTrust;
  readonly #inner: ToolCallDelegate;
  readonly #lru: ProposalLru;
  readonly #store: CachedDelegateOptions["store"];
  readonly #now: Clock;

  constructor(inner: ToolCallDelegate, identity: string, options: CachedDelegateOptions = {}) {
    this.#inner = inner;
    this.name = inner.name;
    this.maxTools = inner.maxTools;
    this.maxInputChars = inner.maxInputChars;
    this.cacheIdentity = identity;
    if (inner.checkSchema) this.checkSchema = (schema) => inner.checkSchema!(schema);
    // The level's trust model judges a reused proposal as a fresh one: the gate reads it from the level.
    if (inner.trust) this.trust = inner.trust;
    let lru = lrus.get(inner);
    if (!lru) lrus.set(inner, (lru = new ProposalLru(options.maxEntries ?? 1000)));
    this.#lru = lru;
    this.#store = options.store;
    this.#now = options._internal?.now ?? systemClock;
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    const key = proposalCacheKey(this.cacheIdentity, request);
    const known = this.#lru.get(key) ?? (await this.#stored(key));
    if (known) return hit(known, performance.now() - started);
    const running = this.#lru.inflight.get(key);
    if (running) {
      const shared = await running.catch(() => undefined);
      if (shared) return hit(stripped(shared), performance.now() - started);
    }
    const asked = this.#inner.propose(request);
    this.#lru.inflight.set(key, asked);
    let proposal: Proposal;
    try {
      proposal = await asked;
    } finally {
      if (this.#lru.inflight.get(key) === asked) this.#lru.inflight.delete(key);
    }
    const kept = stripped(proposal);
    this.#lru.set(key, kept);
    // A proposal the redactor would change (a secret copied from the facts) stays in this process only.
    if (this.#store && canonicalJson(redactRecord(kept)) === canonicalJson(kept)) {
      const now = this.#now();
      await this.#store
        .putCached({ key, scope: `proposal:${this.name}`, value: kept, createdAt: now, expiresAt: null })
        .catch(() => {});
    }
    return proposal;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #stored(key: string): Promise<Omit<Proposal, "latencyMs"> | undefined> {
    if (!this.#store) return undefined;
    // The cache is a saving: a store that cannot answer makes a miss, not a backend error.
    const entry = await this.#store.getCached(key, this.#now()).catch(() => undefined);
    // A store is data: what is not shaped like a proposal is a miss (the gate judges the rest, as any proposal).
    if (!entry || !isProposalShaped(entry.value)) return undefined;
    const proposal = entry.value;
    this.#lru.set(key, proposal);
    return proposal;
  }
}

/**
 * `delegate` as a {@link CachedDelegate} when its decoding is deterministic (it has a `cacheIdentity`), else
 * `delegate` itself. Wrapping is cheap: every wrapper of the same backend shares its in-process cache.
 */
export function cacheProposals(
  delegate: ToolCallDelegate,
  options: CachedDelegateOptions = {},
): ToolCallDelegate {
  if (delegate instanceof CachedDelegate) return delegate;
  const identity = delegate.cacheIdentity;
  return identity === undefined ? delegate : new CachedDelegate(delegate, identity, options);
}

/**
 * The key of a request: the backend's identity (model digest and options), the rendered task, the candidate
 * tools as the model sees them, the proposal schema and the worked examples. Not the unit (`context`) nor the
 * signal: the same task in another node or item gets the same proposal.
 */
export function proposalCacheKey(identity: string, request: ProposeRequest): string {
  const { instruction, facts, tools, schema, examples } = request;
  const hash = createHash("sha256").update(canonicalJson([identity, instruction, facts, examples ?? null]));
  for (const { parameters, ...spec } of tools)
    hash.update(`\n${canonicalJson(spec)}\n${canonicalOf(parameters)}`);
  hash.update(`\n${schema === undefined ? "null" : canonicalOf(schema)}`);
  return `proposal:${hash.digest("hex")}`;
}

/**
 * Schemas as canonical JSON, by object: a tool keeps its parameter schema object for life and the engine's
 * proposal schemas are cached per tool set (proposal-schema.ts), so each is written out once, not per request.
 */
const canonicalTexts = new WeakMap<object, string>();

function canonicalOf(schema: object): string {
  let text = canonicalTexts.get(schema);
  if (text === undefined) canonicalTexts.set(schema, (text = canonicalJson(schema)));
  return text;
}

function isProposalShaped(value: unknown): value is Omit<Proposal, "latencyMs"> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  return (
    (p.name === null || typeof p.name === "string") &&
    typeof p.arguments === "object" &&
    p.arguments !== null &&
    !Array.isArray(p.arguments) &&
    (p.confidence === null || typeof p.confidence === "number") &&
    typeof p.backend === "string"
  );
}

/** What is kept of a proposal: all but what one asking cost (its latency and token usage). */
function stripped(proposal: Proposal): Omit<Proposal, "latencyMs"> {
  const { usage: _usage, latencyMs: _latency, ...kept } = proposal;
  return kept;
}

/** A stored proposal as a reused one: a fresh copy, marked, with the lookup's latency and no usage. */
function hit(known: Omit<Proposal, "latencyMs">, latencyMs: number): Proposal {
  return { ...structuredClone(known), cached: true, latencyMs };
}

/** A digest of the parts that make a backend's answers what they are (for `cacheIdentity` getters). */
export function identityDigest(parts: unknown): string {
  return createHash("sha256").update(canonicalJson(parts)).digest("hex").slice(0, 32);
}
