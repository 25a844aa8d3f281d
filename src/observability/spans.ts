/*
 * What the code sees of traces: spans, the tracer and its settings, with no
 * OpenTelemetry package behind them (see tracing.ts).
 */

/** The W3C trace context headers that make a span the parent of an upstream request. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** Gate outcomes and identifiers only: never arguments, outputs or header values. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** This span as the parent of an outgoing request (HTTP tool, MCP upstream). */
  readonly headers: TraceHeaders;
  /** A child span, started now or at `startTime` (epoch ms). */
  child(name: string, attributes?: SpanAttributes, startTime?: number): TraceSpan;
  set(attributes: SpanAttributes): void;
  /**
   * With `error`, the span's status is ERROR with that description (an error code, never a message); at `endTime` (epoch ms) when given.
   */
  end(error?: string, endTime?: number): void;
}

/** The tracer of a process with tracing on. */
export interface Tracing {
  /**
   * A root span of this process: a server span for an HTTP request, a
   * consumer span for a queued batch. It continues the trace of `parent`
   * when that carries a valid `traceparent` (an invalid one is ignored, as
   * W3C Trace Context says).
   */
  start(
    name: string,
    kind: 'server' | 'consumer',
    parent: TraceHeaders | Readonly<Record<string, unknown>> | undefined,
    attributes?: SpanAttributes,
  ): TraceSpan;
  /** Export what is buffered. */
  flush(): Promise<void>;
  /** Export what is buffered, then stop. */
  shutdown(): Promise<void>;
}

/** What the OTEL_* variables ask for, checked. */
export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON encoding). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
}
