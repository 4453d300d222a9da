import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ProposalEvent } from "../delegate/proposal-channel.js";
import type { NodeType } from "../plan/node-type.js";
import type { UntypedPlan } from "../plan/plan-input.js";
import { EventSequence, type RunEvent } from "../plan/run-events.js";
import type { RunManifest } from "../plan/run-manifest.js";
import { newRunId } from "../plan/run-plan.js";
import { CHANNELS } from "../runtime/channels.js";
import { systemClock } from "../runtime/clock.js";
import { redactRecord } from "../traces/redact.js";
import type { PlanInput } from "./node-types.js";
import { resumeRun, runPlan, type ResumeOptions, type RunOptions } from "./run.js";

/**
 * One event of a run you watch ({@link startPlan}): the engine's run, node, item and escalation events, and each
 * judged proposal of the run's delegate nodes (`proposal-end`, with its verdict). `seq` counts up by one from the
 * run's first event, across resumes.
 */
export type PlanRunEvent = RunEvent | (ProposalEvent & { seq: number });

/** A run under way: its id, its events as they happen, and its manifest once it ends. */
export interface PlanRun {
  /** The run's id (known at once: a new run's is chosen before it starts). */
  readonly runId: string;
  /**
   * The run's events in order, redacted as traces are, ending when the run ends (throwing what the run threw,
   * when it failed to run at all). Every call starts from this attempt's first event: the events are kept until
   * the run object is dropped, so a late consumer misses none. A resume's first event is numbered one after the
   * last of the attempt before.
   */
  events(): AsyncIterableIterator<PlanRunEvent>;
  /** The manifest, as `runPlan` resolves it (rejects as `runPlan` does). */
  readonly manifest: Promise<RunManifest>;
}

/**
 * Starts a plan's run and gives it back at once, to watch as it goes: `for await (const e of run.events())`, then
 * `await run.manifest` (or only the manifest, as {@link runPlan} gives it). Options are `runPlan`'s.
 *
 * Proposals come from the delegate nodes of this process: a distributed run's, made on workers, are not in it.
 *
 * @example
 * const run = startPlan(plan, { tools, delegates: [delegate], store });
 * for await (const e of run.events()) if (e.type === "node-end") console.log(e.seq, e.nodeId, e.status);
 * const manifest = await run.manifest;
 */
export function startPlan<Extra extends NodeType<any> = never>(
  plan: NoInfer<PlanInput<Extra>>,
  options: RunOptions<Extra>,
): PlanRun;
/** A plan only known at run time: `unknown` or `any` (a parsed file, a model's answer), validated as any other. */
export function startPlan<const P>(plan: UntypedPlan<P>, options: RunOptions): PlanRun;
export function startPlan(input: unknown, options: RunOptions): PlanRun {
  const clock = options._internal?.now ?? systemClock;
  const runId = options.runId ?? options._internal?.newRunId?.() ?? newRunId(new Date(clock()));
  return watched(runId, options.redact, (sequence, onEvent) =>
    runPlan(input, { ...options, runId, sequence, onEvent: both(options.onEvent, onEvent) }),
  );
}

/**
 * Resumes a run as {@link resumeRun} does and gives it back at once, to watch as it goes (see {@link startPlan}).
 * Its events are numbered on from the last event of the run's attempt before, so one watcher of both sees none
 * missing and none twice.
 */
export function startResume(runId: string, options: ResumeOptions): PlanRun {
  return watched(runId, options.redact, (sequence, onEvent) =>
    resumeRun(runId, { ...options, sequence, onEvent: both(options.onEvent, onEvent) }),
  );
}

function watched(
  runId: string,
  redact: ((value: unknown) => unknown) | undefined,
  start: (sequence: EventSequence, onEvent: (e: RunEvent) => void) => Promise<RunManifest>,
): PlanRun {
  const log = new EventLog();
  const scrub = redact ?? redactRecord;
  const sequence = new EventSequence();
  // The delegate nodes publish their proposals on `deputy:proposal`; this run's take the next numbers of its own
  // stream as they are published (in the same turn as the engine's events, so the numbers stay in order).
  const onProposal = (message: unknown) => {
    const e = message as ProposalEvent;
    if (e.runId !== runId) return;
    log.push({ ...(scrub(e) as ProposalEvent), seq: sequence.next() });
  };
  subscribe(CHANNELS.proposal, onProposal);
  let manifest: Promise<RunManifest>;
  try {
    manifest = start(sequence, (e) => log.push(scrub(e) as RunEvent));
  } catch (error) {
    manifest = Promise.reject(error);
  }
  manifest.then(
    () => log.end(),
    (error: unknown) => log.end(error),
  );
  void manifest.finally(() => unsubscribe(CHANNELS.proposal, onProposal)).catch(() => {});
  return { runId, manifest, events: () => log.read() };
}

/** Calls the caller's own `onEvent` too; its failure stays its own (the engine ignores a listener's throw). */
function both(
  mine: ((e: RunEvent) => void) | undefined,
  stream: (e: RunEvent) => void,
): (e: RunEvent) => void {
  if (!mine) return stream;
  return (e) => {
    stream(e);
    mine(e);
  };
}

/** The events of one attempt, kept for every reader, each reader waiting for the next one. */
class EventLog {
  readonly #events: PlanRunEvent[] = [];
  #ended: { error?: unknown } | undefined;
  #wake: (() => void)[] = [];

  push(event: PlanRunEvent): void {
    if (this.#ended) return;
    this.#events.push(event);
    this.#notify();
  }

  end(error?: unknown): void {
    this.#ended = error === undefined ? {} : { error };
    this.#notify();
  }

  async *read(): AsyncIterableIterator<PlanRunEvent> {
    for (let i = 0; ;) {
      if (i < this.#events.length) {
        yield this.#events[i++]!;
        continue;
      }
      if (this.#ended) {
        if ("error" in this.#ended) throw this.#ended.error;
        return;
      }
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  #notify() {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }
}
