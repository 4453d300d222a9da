import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import {
  DELEGATE_CHANNEL,
  DELEGATE_START_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type DelegateEvent,
  type DelegateStartEvent,
  type DelegationRefusedEvent,
} from "./events.js";

/** Options of `enableOpenTelemetry` (from `deputy`). */
export interface OpenTelemetryBridgeOptions {
  /** Default: `trace.getTracer("deputy")` from the globally registered provider. */
  tracer?: Tracer;
  /** Record the calling model's arguments as a span attribute. Default `false` (they may hold personal data). */
  recordArguments?: boolean;
}

/**
 * The delegation part of the OpenTelemetry bridge (`deputy:delegate-start`, `deputy:delegate`,
 * `deputy:delegation-refused`); `onSpan` sees each delegated call's span as it starts (a plan delegation's run
 * hangs under it). Returns a function that unsubscribes.
 *
 * @internal
 */
export function bridgeDelegations(
  tracer: Tracer,
  options: Pick<OpenTelemetryBridgeOptions, "recordArguments">,
  onSpan?: (event: DelegateStartEvent, span: Span) => void,
): () => void {
  const open = new Map<string, Span>();
  const common = (e: DelegateStartEvent | DelegateEvent | DelegationRefusedEvent): Attributes => ({
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

  const onStart = (message: unknown) => {
    const e = message as DelegateStartEvent;
    const attributes: Attributes = {
      ...common(e),
      "gen_ai.system": e.provider,
      "gen_ai.request.model": e.model,
    };
    if (e.runId !== undefined) attributes["deputy.run_id"] = e.runId;
    if (options.recordArguments) attributes["deputy.arguments"] = JSON.stringify(e.arguments);
    const span = tracer.startSpan(`delegate ${e.tool}`, { attributes }, parentContext(e.parentCallId));
    open.set(e.callId, span);
    onSpan?.(e, span);
  };
  const onEnd = (message: unknown) => {
    const e = message as DelegateEvent;
    let span = open.get(e.callId);
    open.delete(e.callId);
    span ??= tracer.startSpan(`delegate ${e.tool}`, { attributes: common(e) }, parentContext(e.parentCallId));
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
  const onRefused = (message: unknown) => {
    const e = message as DelegationRefusedEvent;
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
  subscribe(DELEGATE_START_CHANNEL, onStart);
  subscribe(DELEGATE_CHANNEL, onEnd);
  subscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
  return () => {
    unsubscribe(DELEGATE_START_CHANNEL, onStart);
    unsubscribe(DELEGATE_CHANNEL, onEnd);
    unsubscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
  };
}
