import { randomBytes } from "node:crypto";
import { RunError } from "../errors/run-error.js";
import { systemClock } from "../runtime/clock.js";
import { deadline } from "../runtime/deadline.js";
import { redactRecord } from "../runtime/redact-value.js";
import type { EngineContext } from "./engine-context.js";
import { planFingerprint } from "./fingerprint.js";
import { checkToolDefinitions, toolDefinitionsOf } from "./tool-definitions.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import type { ExecutionHost, UnitDispatcher } from "./node-executor.js";
import { acquireRunLease, type HeldLease } from "../store/run-lease.js";
import { runOptionsRecord } from "../store/run-options-record.js";
import { createEmitter, EventSequence } from "./run-events.js";
import { runEngine } from "./run-engine.js";
import type { RunManifest } from "./run-manifest.js";
import type { EngineOptions } from "./run-options.js";
import type { NodeStatus, RunRecord, StoredRun } from "../store/run-state.js";
import type { RunMutation, RunStore } from "../store/run-store.js";
import { parsePlan } from "./validate-plan.js";
import { dataMap, setOwn, toDataMap } from "../runtime/own.js";

/**
 * The engine's entry: validates and runs a plan (the JSON object as given) with the node types and host given.
 * Resolves with the run's manifest whatever the run's status; rejects only when the plan is invalid
 * (`PlanValidationError`, listing every issue) or the store fails. Most code calls the root entry's `runPlan`,
 * which registers the built-in node types and calls this.
 */
export async function startRun(input: unknown, options: EngineOptions): Promise<RunManifest> {
  const { host, nodeTypes } = options;
  const plan =
    options.validated?.ok && options.validated.plan
      ? options.validated.plan
      : parsePlan(input, { host, nodeTypes, knownArtifacts: Object.keys(options.artifacts ?? {}) }).plan;
  const clock = options._internal?.now ?? systemClock;
  const now = () => new Date(clock());
  const store = options.store ?? new MemoryRunStore();
  const runId = options.runId ?? options._internal?.newRunId?.() ?? newRunId(now());
  const run: RunRecord = {
    runId,
    planName: plan.name,
    fingerprint: planFingerprint(input),
    plan: input,
    status: "running",
    createdAt: now().toISOString(),
    updatedAt: now().toISOString(),
    options: runOptionsRecord(options.meta, {
      inputs: options.inputs,
      distributed: options.distributed !== undefined,
      toolDefinitions: toolDefinitionsOf(plan, host, nodeTypes),
    }),
  };
  await store.createRun(run);
  const lease = await acquireRunLease(store, runId, options.lease, options.signal);
  return owned(runId, lease, options.distributed, async () => {
    const state: StoredRun = { run, artifacts: dataMap(), nodes: dataMap(), items: dataMap() };
    // A store made here, for want of one, is never read: the run keeps its state in memory and skips it.
    const persist = options.store !== undefined && plan.metadata.checkpoint;
    const ctx = context(options, plan, host, nodeTypes, lease, state, now, persist);
    const initial: RunMutation[] = Object.entries(options.artifacts ?? {}).map(([key, value]) => ({
      kind: "artifact",
      key,
      value,
    }));
    if (initial.length) {
      await ctx.store.write(runId, initial);
      for (const m of initial) if (m.kind === "artifact") setOwn(state.artifacts, m.key, m.value);
    }
    return runEngine(ctx, false);
  });
}

/** Runs `body` while holding the run's lease; a lost lease ends the run with `LEASE_LOST`. */
async function owned(
  runId: string,
  lease: HeldLease,
  dispatcher: UnitDispatcher | undefined,
  body: () => Promise<RunManifest>,
): Promise<RunManifest> {
  try {
    const manifest = await body();
    if (lease.lost.aborted) throw lease.lost.reason;
    return manifest;
  } finally {
    // Only an owner that kept its lease to the end may drop what the run kept on the side: after a lost
    // lease, the new owner still needs it.
    if (!lease.lost.aborted) await dispatcher?.settle?.(runId).catch(() => {});
    await lease.release();
  }
}

/** Options of {@link continueRun}: those of a run, plus the plan to check against the stored one. */
export interface EngineResumeOptions extends Omit<EngineOptions, "runId" | "artifacts" | "store"> {
  store: RunStore;
  /** The plan as it is now; refused when its fingerprint differs from the run's. Default: the stored plan. */
  plan?: unknown;
}

/**
 * Continues a run from its last checkpoint: nodes and items that completed are not run again, failed and
 * blocked nodes are retried, unfinished for_each nodes go on with the items not yet stored, and escalations
 * that were resolved (`deputy resolve`) are applied. A plan whose fingerprint changed is refused.
 */
export async function continueRun(runId: string, options: EngineResumeOptions): Promise<RunManifest> {
  if (!(await options.store.load(runId))) {
    throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in the store.`, { runId });
  }
  // Owned before its state is read, so no other process changes it underneath.
  const lease = await acquireRunLease(options.store, runId, options.lease, options.signal);
  return owned(runId, lease, options.distributed, () => continueOwned(runId, options, lease));
}

async function continueOwned(
  runId: string,
  options: EngineResumeOptions,
  lease: HeldLease,
): Promise<RunManifest> {
  const loaded = (await options.store.load(runId))!;
  // A model-written plan kept for a person's approval never runs from here: approving it starts a run of its own.
  if (loaded.run.options.authored?.approval?.status === "pending")
    throw new RunError(
      "RUN_AWAITS_APPROVAL",
      `Run ${runId} is a model-written plan awaiting a person's approval; nothing of it runs until it is approved (deputy plan --approve ${runId}).`,
      { runId },
    );
  // Whatever the store returns (a structured clone has Object.prototype again), keys are data from here on.
  const stored: StoredRun = {
    run: loaded.run,
    artifacts: toDataMap(loaded.artifacts),
    nodes: toDataMap(loaded.nodes),
    items: toDataMap(loaded.items),
  };
  if (options.plan !== undefined && planFingerprint(options.plan) !== stored.run.fingerprint) {
    throw new RunError(
      "PLAN_FINGERPRINT_CHANGED",
      `The plan changed since run ${runId} started (fingerprint ${planFingerprint(options.plan)} ≠ ${stored.run.fingerprint}); start a new run instead.`,
      { runId },
    );
  }
  const { host, nodeTypes } = options;
  const { plan } = parsePlan(stored.run.plan, {
    host,
    nodeTypes,
    knownArtifacts: Object.keys(stored.artifacts),
  });
  checkToolDefinitions(runId, stored.run.options.toolDefinitions, toolDefinitionsOf(plan, host, nodeTypes));
  const retry: NodeStatus[] = ["error", "blocked", "pending", "running"];
  for (const [id, record] of Object.entries(stored.nodes))
    if (retry.includes(record.status)) delete stored.nodes[id];
  const clock = options._internal?.now ?? systemClock;
  const now = () => new Date(clock());
  const inputs = options.inputs ?? stored.run.options.inputs;
  const ctx = context(
    { ...options, ...(inputs ? { inputs } : {}) },
    plan,
    host,
    nodeTypes,
    lease,
    stored,
    now,
    plan.metadata.checkpoint,
  );
  return runEngine(ctx, true);
}

function context(
  options: Omit<EngineOptions, "store">,
  plan: EngineContext["plan"],
  host: EngineContext["host"],
  nodeTypes: EngineContext["nodeTypes"],
  lease: HeldLease,
  state: StoredRun,
  now: () => Date,
  persist: boolean,
): EngineContext {
  const timeout = plan.metadata.execution_timeout;
  // Numbered on from where the run's last attempt ended (0 for a new run).
  const sequence = options.sequence ?? new EventSequence();
  sequence.last = Math.max(sequence.last, state.run.eventSeq ?? 0);
  // A lost lease stops the run at once, like an abort.
  const signal = options.signal ? AbortSignal.any([options.signal, lease.lost]) : lease.lost;
  const limit = deadline(signal, timeout === undefined ? undefined : timeout * 1000, {
    reason: () => new DOMException("execution_timeout", "TimeoutError"),
    unref: true, // never keeps the process alive
  });
  // deputy's redactor unless the caller brings its own: which entry a program imported must not decide it.
  const redact = options.redact ?? redactRecord;
  return {
    plan,
    // Tool nodes with `cache` keep results in the run's store (its cache table outlives the run). The host is
    // wrapped, not copied: a node type reads only the host fields it declares (the conformance suite watches).
    host: withResultCache(host, { store: lease.store, now: () => now().getTime(), redact }),
    nodeTypes,
    store: lease.store,
    persist,
    state,
    signal: limit.signal,
    stop: options.stop ?? new AbortController().signal,
    inputs: options.inputs,
    now,
    redact,
    emit: createEmitter(options.onEvent, sequence),
    statuses: dataMap(),
    errors: dataMap(),
    ...(options.distributed ? { dispatcher: options.distributed } : {}),
  };
}

/** Time-ordered, unique run ids: `20261130-041503-3f9a1c`. */
export function newRunId(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 19).replace(/:/g, "")}-${randomBytes(3).toString("hex")}`;
}

/** The host as given, plus the run's result cache: every other field is read from the host when it is read. */
function withResultCache(
  host: ExecutionHost,
  resultCache: NonNullable<ExecutionHost["resultCache"]>,
): ExecutionHost {
  return new Proxy(host, {
    get: (target, key, receiver) =>
      key === "resultCache" ? resultCache : (Reflect.get(target, key, receiver) as unknown),
    has: (target, key) => key === "resultCache" || Reflect.has(target, key),
  });
}
