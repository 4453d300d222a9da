import type { JobHelpers, Task } from "graphile-worker";
import { DeputyError, serializeError } from "../errors/deputy-error.js";
import { RunError } from "../errors/run-error.js";
import { createHost, withProposalCache, type RunOptions } from "../compose/index.js";
import { executeWith } from "../plan/engine-context.js";
import type { UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import type { ExecutionPlan } from "../plan/plan-schema.js";
import type { PostgresRunStore } from "../store/postgres-run-store.js";
import { storeUnitOutcomeQuery, unitCheckQuery } from "../store/postgres-unit-results.js";

import type { TemplateScope } from "../runtime/template.js";
import { systemClock } from "../runtime/clock.js";
import { redactRecord } from "../runtime/redact-value.js";
import { parsePlan } from "../plan/validate-plan.js";
import { doneMessage, UNIT_DONE_CHANNEL } from "./job-dispatcher.js";
import type { UnitPayload } from "./unit-payload.js";

type Host = ReturnType<typeof createHost>;

/** Where a unit task sends its queries: the worker's queue connections (a `pg` pool, see `queuePool`). */
export interface UnitQueue {
  query<R extends object>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/** Marks the failure of a job this worker no longer holds (not worth a log line). */
export const UNIT_NOT_MINE = "deputy: unit taken over";

/**
 * The task a worker runs for each unit job: the same executors, gate, traces and budgets as in-process runs,
 * built from the worker's own tools module and delegates. The outcome is stored under the unit's key and
 * announced; a unit whose outcome is already stored is not run again (its job is only completed).
 */
export function createUnitTask(
  store: PostgresRunStore,
  options: Omit<RunOptions, "store">,
  workerName: string,
  /** The ids of this process's worker pools (what its jobs are locked by). */
  poolIds: () => string[],
  /** Where the unit's checks and outcome go: the worker's queue connections (see `queuePool`). */
  queue: UnitQueue = store.pool,
): Task {
  // Deterministic delegate levels reuse proposals through the store's cache, as the run's own process does.
  const made = createHost(withProposalCache({ ...options, store }));
  // Tool nodes with `cache` share the store's cache table with every worker and the run's own process.
  const resultCache = {
    store,
    now: options._internal?.now ?? systemClock,
    redact: options.redact ?? redactRecord,
  };
  const host: Host = { ...made, host: { ...made.host, resultCache } };
  const plans = new Map<string, Promise<ExecutionPlan>>();

  const planOf = (runId: string): Promise<ExecutionPlan> => {
    let plan = plans.get(runId);
    if (!plan) {
      plan = (async () => {
        const stored = await store.load(runId);
        if (!stored) throw new DeputyError("RUN_NOT_FOUND", `No run ${runId} in ${store.label}.`);
        return parsePlan(stored.run.plan, {
          host: host.host,
          nodeTypes: host.nodeTypes,
          knownArtifacts: Object.keys(stored.artifacts),
        }).plan;
      })();
      plan.catch(() => plans.delete(runId));
      if (plans.size > 100) plans.delete(plans.keys().next().value!);
      plans.set(runId, plan);
    }
    return plan;
  };

  return async (raw: unknown, helpers: JobHelpers) => {
    const payload = raw as UnitPayload;
    const plan = await planOf(payload.runId);
    // Checked right before running, on every attempt: the outcome may have been stored by a worker that died
    // before completing its job; and if this worker was presumed dead, its job was unlocked and someone else
    // holds it now.
    const { rows } = await queue.query<{ done: boolean; mine: boolean }>(
      unitCheckQuery(payload.key, helpers.job.id, poolIds()),
    );
    if (rows[0]!.done) {
      await queue.query({
        name: "deputy_unit_announce",
        text: `SELECT pg_notify($1, $2)`,
        values: [UNIT_DONE_CHANNEL, doneMessage(payload.key)],
      });
      return;
    }
    // Failing a job another pool holds changes nothing (Graphile Worker only fails its own locks).
    if (!rows[0]!.mine) {
      throw new RunError("LEASE_LOST", `${UNIT_NOT_MINE}: another worker holds ${payload.key} now`, {
        runId: payload.runId,
      });
    }
    const outcome = await runUnit(plan, host, payload, helpers.abortSignal);
    // Shutting down: hand the job back (it fails, and runs again elsewhere) rather than store an abort.
    if (helpers.abortSignal.aborted) {
      throw new RunError("UNIT_HANDED_BACK", "worker shutting down; unit handed back", {
        runId: payload.runId,
      });
    }
    // Stored and announced in one statement (the notification is delivered when it commits), the outcome in
    // the notification unless too large — or unless another worker's outcome was stored first: that one stands.
    const json = jsonOutcome(outcome);
    await queue.query(
      storeUnitOutcomeQuery(
        { key: payload.key, runId: payload.runId, outcomeJson: json, worker: workerName },
        UNIT_DONE_CHANNEL,
        { stored: doneMessage(payload.key, json), notStored: doneMessage(payload.key) },
      ),
    );
  };
}

async function runUnit(
  plan: ExecutionPlan,
  { host, nodeTypes }: Host,
  p: UnitPayload,
  signal: AbortSignal,
): Promise<UnitOutcome> {
  const node = plan.nodes.find((n) => n.id === p.nodeId);
  if (!node) return { status: "error", error: { code: "NODE_NOT_FOUND", message: `No node ${p.nodeId}.` } };
  const scope: TemplateScope = { artifacts: p.artifacts };
  if (p.alias !== undefined) scope.alias = p.alias;
  if ("item" in p) scope.item = p.item;
  if (p.index !== undefined) scope.index = p.index;
  if (p.inputs) scope.inputs = p.inputs;
  const unit: WorkUnit = {
    runId: p.runId,
    nodeId: p.nodeId,
    scope,
    signal,
    statuses: p.statuses,
    errors: p.errors,
    host,
  };
  if (p.itemIndex !== undefined) unit.itemIndex = p.itemIndex;
  if (p.escalation) unit.escalation = p.escalation;
  if (p.resolution) unit.resolution = p.resolution;
  return executeWith(nodeTypes, node, unit);
}

/** The outcome as JSON; a value JSON cannot carry becomes the unit's error, naming the node. */
function jsonOutcome(outcome: UnitOutcome): string {
  try {
    return JSON.stringify(outcome);
  } catch (error) {
    return JSON.stringify({
      status: "error",
      error: { ...serializeError(error), code: "RESULT_NOT_JSON" },
    } satisfies UnitOutcome);
  }
}
