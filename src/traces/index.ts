/// <reference types="node" preserve="true" />
/**
 * `deputy-js/traces` — one {@link DelegateTrace} per proposal hop, written to a {@link TraceSink}:
 * {@link JsonlTraceSink} (redacted, capped, rotated; never throws into a run) or {@link MemoryTraceSink};
 * read back ({@link readTraces}), summarised ({@link traceStats}) and exported to fine-tuning data
 * ({@link tracesToChat}).
 *
 * @packageDocumentation
 */
export type { DelegateTrace, TraceSink } from "./trace.js";
export { JsonlTraceSink, type JsonlTraceSinkOptions } from "./jsonl-trace-sink.js";
export { MemoryTraceSink } from "./memory-trace-sink.js";
export { isSecretKey, REDACTED, Redactor, type RedactOptions, type RedactRule } from "./redact.js";
export { readTraces } from "./read-traces.js";
export { traceStats, type TraceGroupStats, type TraceStats } from "./trace-stats.js";
export { tracesToChat, type ChatExample, type TraceExport, type TraceExportOptions } from "./trace-export.js";
