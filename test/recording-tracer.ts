import {
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
} from "@opentelemetry/api";

/** A recording tracer (the OpenTelemetry SDK is outside the project; the API is what we bridge to). */
export class RecordedSpan implements Span {
  attributes: Attributes;
  events: { name: string; attributes?: Attributes }[] = [];
  status: SpanStatus = { code: 0 };
  ended = false;
  readonly context: SpanContext;
  constructor(
    readonly name: string,
    options: SpanOptions,
    readonly parent: RecordedSpan | undefined,
    id: number,
  ) {
    this.attributes = { ...options.attributes };
    this.context = {
      traceId: "0".repeat(31) + "1",
      spanId: id.toString(16).padStart(16, "0"),
      traceFlags: 1,
    };
  }
  spanContext() {
    return this.context;
  }
  setAttribute(k: string, v: any) {
    this.attributes[k] = v;
    return this;
  }
  setAttributes(a: Attributes) {
    Object.assign(this.attributes, a);
    return this;
  }
  addEvent(name: string, attributes?: any) {
    this.events.push({ name, attributes });
    return this;
  }
  addLink() {
    return this;
  }
  addLinks() {
    return this;
  }
  setStatus(s: SpanStatus) {
    this.status = s;
    return this;
  }
  updateName() {
    return this;
  }
  end() {
    this.ended = true;
  }
  isRecording() {
    return !this.ended;
  }
  recordException() {}
}
export function recordingTracer() {
  const spans: RecordedSpan[] = [];
  const tracer = {
    startSpan(name: string, options: SpanOptions = {}, ctx?: Context) {
      const parent = ctx ? (trace.getSpan(ctx) as RecordedSpan | undefined) : undefined;
      const span = new RecordedSpan(name, options, parent, spans.length + 1);
      spans.push(span);
      return span;
    },
    startActiveSpan() {
      throw new Error("not used");
    },
  } as unknown as Tracer;
  return { tracer, spans };
}
