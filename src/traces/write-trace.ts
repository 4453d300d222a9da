import type { DelegateTrace, TraceSink } from "./trace.js";

/**
 * Hands a trace to the sink and waits for it, swallowing every failure (a sink that throws or rejects never
 * fails the run; sinks count their own failures).
 */
export async function writeTrace(sink: TraceSink | undefined, trace: DelegateTrace): Promise<void> {
  if (!sink) return;
  try {
    await sink.write(trace);
  } catch {
    // Traces are best-effort by design: losing one must not cost the run.
  }
}
