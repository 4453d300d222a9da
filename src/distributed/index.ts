/// <reference types="node" preserve="true" />
/**
 * Beyond one machine: a run's units as Graphile Worker jobs on PostgreSQL, run by `deputy worker` processes on
 * any machine with the same executors, gate, traces and budgets. See `docs/scale-out.md`.
 */
export { JobDispatcher, UNIT_DONE_CHANNEL, UNIT_TASK, type JobDispatcherOptions } from "./job-dispatcher.js";
export { startWorker, type DeputyWorker, type StartWorkerOptions } from "./start-worker.js";
export { artifactsReadBy, toPayload, unitKey, type UnitPayload } from "./unit-payload.js";
export { createUnitTask } from "./unit-task.js";
export { WorkerLiveness, type LivenessOptions } from "./worker-liveness.js";
