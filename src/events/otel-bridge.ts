import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import {
  DELEGATION_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  DELEGATION_START_CHANNEL,
  type DelegationEvent,
  type DelegationRefusedEvent,
  type DelegationStartEvent,
} from "../agents/events.js";
import { onDiagnostics, type DiagnosticsEvents } from "./diagnostics-channels.js";

// The one OpenTelemetry bridge: plan runs, nodes and proposals, and agents' delegations, in one place.

/** Options of {@link enableOpenTelemetry}. */
export interface OpenTelemetryBridgeOptions {
  /** Default: `trace.getTracer("deputy")` from the globally registered provider. */
  tracer?: Tracer;
  /** Record the calling model's arguments as a span attribute. Default `false` (they may hold personal data). */
  recordArguments?: boolean;
}

/**
 * Opt-in: turns every diagnostics channel into OpenTelemetry spans. A run is a span (`run <plan>`), each node a
 * child span (`node <id>`) with its items' ends as span events; each judged proposal is a `proposal` event on
 * its node's span (or a short span of its own, for the router tool); each delegated call is a span
 * (`delegation <tool>`) under the call it runs inside, and a plan it runs hangs under it; refusals are span
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
      nodes.get(key)?.addEvent("item-end", {
        "deputy.index": e.index,
        "deputy.status": e.status,
        ...(e.cached ? { "deputy.cached": true } : {}),
      });
    } else if (e.type === "escalation-open") {
      nodes.get(key)?.addEvent("escalation-open", {
        ...(e.item === undefined ? {} : { "deputy.index": e.item }),
        "deputy.verdict": e.verdict,
      });
    } else if (e.type === "node-end") {
      const span = nodes.get(key);
      nodes.delete(key);
      if (!span) return;
      span.setAttributes({
        "deputy.status": e.status,
        "deputy.duration_ms": e.durationMs,
        ...(e.cached ? { "deputy.cached": true } : {}),
      });
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
      ...(e.cached ? { "deputy.cached": true } : {}),
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

/**
 * The delegation part of the OpenTelemetry bridge (`deputy:delegation-start`, `deputy:delegation`,
 * `deputy:delegation-refused`); `onSpan` sees each delegated call's span as it starts (a plan delegation's run
 * hangs under it). Returns a function that unsubscribes.
 */
function bridgeDelegations(
  tracer: Tracer,
  options: Pick<OpenTelemetryBridgeOptions, "recordArguments">,
  onSpan?: (event: DelegationStartEvent, span: Span) => void,
): () => void {
  const open = new Map<string, Span>();
  const common = (e: DelegationStartEvent | DelegationEvent | DelegationRefusedEvent): Attributes => ({
    "deputy.trace_id": e.traceId,
    "deputy.agent": e.agent,
    "deputy.delegate": e.delegate,
    "deputy.action": e.action,
    "deputy.tool": e.tool,
    "deputy.depth": e.depth,
  });
  const parentContext = (parentCallId: string | undefined) => {
    const parent = parentCallId ? open.get(parentCallId) : undefined;
    return parent ? trace.setSpan(context.active(), parent) : context.active();
  };

  const onStart = (e: DelegationStartEvent) => {
    const attributes: Attributes = {
      ...common(e),
      "gen_ai.system": e.provider,
      "gen_ai.request.model": e.model,
    };
    if (e.runId !== undefined) attributes["deputy.run_id"] = e.runId;
    if (options.recordArguments) attributes["deputy.arguments"] = JSON.stringify(e.arguments);
    const span = tracer.startSpan(`delegation ${e.tool}`, { attributes }, parentContext(e.parentCallId));
    open.set(e.callId, span);
    onSpan?.(e, span);
  };
  const onEnd = (e: DelegationEvent) => {
    let span = open.get(e.callId);
    open.delete(e.callId);
    span ??= tracer.startSpan(
      `delegation ${e.tool}`,
      { attributes: common(e) },
      parentContext(e.parentCallId),
    );
    span.setAttributes({
      "deputy.status": e.status,
      "deputy.duration_ms": e.durationMs,
      "deputy.cost_usd": e.cost,
      "gen_ai.usage.input_tokens": e.usage.inputTokens,
      "gen_ai.usage.output_tokens": e.usage.outputTokens,
      "deputy.ledger.calls": e.ledger.calls,
      "deputy.ledger.tokens": e.ledger.tokens,
    });
    if (e.status !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: e.status });
    span.end();
  };
  const onRefused = (e: DelegationRefusedEvent) => {
    const attributes: Attributes = {
      ...common(e),
      "deputy.limit": e.limit,
      "deputy.allowed": e.allowed,
      "deputy.used": e.used,
      "deputy.scope": e.scope,
      "deputy.budget_owner": e.budgetOwner,
    };
    const parent = e.parentCallId ? open.get(e.parentCallId) : undefined;
    if (parent) parent.addEvent("delegation-refused", attributes);
    else tracer.startSpan(`delegation-refused ${e.tool}`, { attributes }, context.active()).end();
  };
  const stops = [
    onDiagnostics(DELEGATION_START_CHANNEL, onStart),
    onDiagnostics(DELEGATION_CHANNEL, onEnd),
    onDiagnostics(DELEGATION_REFUSED_CHANNEL, onRefused),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
