/* What the code sees of traces, with no OpenTelemetry package behind them (see tracing.ts). */

export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** Gate outcomes and identifiers only: never arguments, outputs or header values. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** This span as the parent of an outgoing request. */
  readonly headers: TraceHeaders;
  child(name: string, attributes?: SpanAttributes, startTime?: number): TraceSpan;
  set(attributes: SpanAttributes): void;
  /** `error` is an error code, never a message. */
  end(error?: string, endTime?: number): void;
}

export interface Tracing {
  /** A root span; continues `parent`'s trace when its `traceparent` is valid (an invalid one is ignored). */
  start(
    name: string,
    kind: 'server' | 'consumer',
    parent: TraceHeaders | Readonly<Record<string, unknown>> | undefined,
    attributes?: SpanAttributes,
  ): TraceSpan;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TracingSettings {
  url: string;
  headers: Record<string, string>;
  serviceName: string;
}
