import { context, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { bridgeDelegations, type OpenTelemetryBridgeOptions } from "../agents/otel-bridge.js";
import { onDiagnostics, type DiagnosticsEvents } from "./diagnostics-channels.js";

export type { OpenTelemetryBridgeOptions };

/**
 * Opt-in: turns every diagnostics channel into OpenTelemetry spans. A run is a span (`run <plan>`), each node a
 * child span (`node <id>`) with its items' ends as span events; each judged proposal is a `proposal` event on
 * its node's span (or a short span of its own, for the router tool); each delegated call is a span
 * (`delegate <tool>`) under the call it runs inside, and a plan it runs hangs under it; refusals are span
 * events. Failed runs, nodes and calls have an error status. Returns a function that unsubscribes.
 *
 * @example
 * const stop = enableOpenTelemetry({ tracer: trace.getTracer("my-service") });
 */
export function enableOpenTelemetry(options: OpenTelemetryBridgeOptions = {}): () => void {
  const tracer = options.tracer ?? trace.getTracer("deputy");
  const runs = new Map<string, Span>();
  const nodes = new Map<string, Span>();
  /** The delegated call a plan run was started by, by run id. */
  const callers = new Map<string, Span>();
  const under = (span: Span | undefined) => (span ? trace.setSpan(context.active(), span) : context.active());
  const nodeKey = (runId: string, nodeId: string) => `${runId}\0${nodeId}`;

  const onRun = (e: DiagnosticsEvents["deputy:run"]) => {
    if (e.type === "run-start") {
      const span = tracer.startSpan(
        `run ${e.plan}`,
        {
          attributes: {
            "deputy.run_id": e.runId,
            "deputy.plan": e.plan,
            "deputy.nodes": e.nodes,
            "deputy.resumed": e.resumed,
          },
        },
        under(callers.get(e.runId)),
      );
      runs.set(e.runId, span);
      return;
    }
    const span = runs.get(e.runId);
    runs.delete(e.runId);
    callers.delete(e.runId);
    if (!span) return;
    span.setAttributes({ "deputy.status": e.status, "deputy.duration_ms": e.durationMs });
    if (e.status === "failed" || e.status === "cancelled" || e.status === "interrupted")
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.status });
    span.end();
  };
  const onNode = (e: DiagnosticsEvents["deputy:node"]) => {
    const key = nodeKey(e.runId, e.nodeId);
    if (e.type === "node-start") {
      const attributes = {
        "deputy.run_id": e.runId,
        "deputy.node_id": e.nodeId,
        ...(e.items === undefined ? {} : { "deputy.items": e.items }),
      };
      nodes.set(key, tracer.startSpan(`node ${e.nodeId}`, { attributes }, under(runs.get(e.runId))));
    } else if (e.type === "item-end") {
      nodes.get(key)?.addEvent("item-end", { "deputy.index": e.index, "deputy.status": e.status });
    } else {
      const span = nodes.get(key);
      nodes.delete(key);
      if (!span) return;
      span.setAttributes({ "deputy.status": e.status, "deputy.duration_ms": e.durationMs });
      if (e.status === "error" || e.status === "blocked")
        span.setStatus({ code: SpanStatusCode.ERROR, message: e.status });
      span.end();
    }
  };
  const onProposal = (e: DiagnosticsEvents["deputy:proposal"]) => {
    const attributes = {
      "deputy.run_id": e.runId,
      "deputy.node_id": e.nodeId,
      ...(e.item === undefined ? {} : { "deputy.item": e.item }),
      "deputy.backend": e.backend,
      "deputy.source": e.source,
      "deputy.verdict": e.verdict,
      ...(e.tool === undefined ? {} : { "deputy.tool": e.tool }),
      ...(e.confidence === null ? {} : { "deputy.confidence": e.confidence }),
      "deputy.latency_ms": e.latencyMs,
    };
    const node = nodes.get(nodeKey(e.runId, e.nodeId));
    if (node) node.addEvent("proposal", attributes);
    else tracer.startSpan(`proposal ${e.nodeId}`, { attributes }, context.active()).end();
  };

  const stops = [
    onDiagnostics("deputy:run", onRun),
    onDiagnostics("deputy:node", onNode),
    onDiagnostics("deputy:proposal", onProposal),
    bridgeDelegations(tracer, options, (e, span) => {
      if (e.runId !== undefined) callers.set(e.runId, span);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
