import type { NodeType } from "../plan/node-type.js";
import type { UntypedPlan } from "../plan/plan-input.js";
import type { RunManifest } from "../plan/run-manifest.js";
import type { EngineOptions } from "../plan/run-options.js";
import { continueRun, startRun } from "../plan/run-plan.js";
import type { RunStore } from "../store/run-store.js";
import { redactRecord } from "../traces/redact.js";
import { createHost, type HostOptions } from "./host.js";
import { cacheProposals } from "../delegate/backends/cached-delegate.js";
import type { PlanInput } from "./node-types.js";

/** Options of {@link runPlan}: what the run is wired with, plus how it goes. */
export interface RunOptions<Extra extends NodeType<any> = NodeType<any>>
  extends HostOptions<Extra>, Omit<EngineOptions, "host" | "nodeTypes"> {
  /**
   * Reuse the proposals of delegate levels whose decoding is deterministic (`CachedDelegate`): in this process,
   * and through the run store's cache table across runs and resumes. The gate judges a reused proposal as a fresh
   * one. Default `true`; `false` asks the model every time.
   */
  proposalCache?: boolean;
}

/** Options of {@link resumeRun}: those of a run, plus the store it is in and the plan to check against it. */
export interface ResumeOptions extends Omit<RunOptions, "runId" | "artifacts" | "store"> {
  store: RunStore;
  /** The plan as it is now; refused when its fingerprint differs from the run's. Default: the stored plan. */
  plan?: unknown;
}

/**
 * Validates and runs a plan (the JSON object as given) with the built-in node types (and `nodeTypes`).
 * Resolves with the run's manifest whatever the run's status; rejects only when the plan is invalid
 * (`PlanValidationError`, listing every issue) or the store fails.
 *
 * A plan written in TypeScript (an object, or {@link plan}`(…).build()`) is a {@link PlanInput}: a misspelt field
 * is a compile error. A plan only known at run time — `JSON.parse` of a file (`any`), a value typed `unknown` —
 * is taken as it is and validated like any other (see `docs/library.md`, "Typed plans").
 *
 * @example
 * const manifest = await runPlan(JSON.parse(await readFile("plan.json", "utf8")), {
 *   tools: [fetchAlerts, fileTicket],
 *   store: new SqliteRunStore(".deputy/runs.db"),
 * });
 * if (manifest.status === "escalated") console.log(manifest.nodes.triage.escalations);
 */
export function runPlan<Extra extends NodeType<any> = never>(
  plan: NoInfer<PlanInput<Extra>>,
  options: RunOptions<Extra>,
): Promise<RunManifest>;
/** A plan only known at run time: `unknown` or `any` (a parsed file, a model's answer), validated as any other. */
export function runPlan<const P>(plan: UntypedPlan<P>, options: RunOptions): Promise<RunManifest>;
export function runPlan(input: unknown, options: RunOptions): Promise<RunManifest> {
  return startRun(input, { redact: redactRecord, ...options, ...createHost(withProposalCache(options)) });
}

/**
 * Continues a run from its last checkpoint: nodes and items that completed are not run again, failed and
 * blocked nodes are retried, unfinished for_each nodes go on with the items not yet stored, and escalations
 * that were resolved are applied. A plan whose fingerprint changed is refused.
 */
export function resumeRun(runId: string, options: ResumeOptions): Promise<RunManifest> {
  return continueRun(runId, { redact: redactRecord, ...options, ...createHost(withProposalCache(options)) });
}

/** The options with each deterministic delegate level wrapped in the proposal cache (see `proposalCache`). */
export function withProposalCache<O extends Pick<RunOptions, "delegates" | "store" | "proposalCache">>(
  options: O,
): O {
  if (options.proposalCache === false || !options.delegates?.length) return options;
  const store = options.store;
  return { ...options, delegates: options.delegates.map((d) => cacheProposals(d, { store })) };
}
