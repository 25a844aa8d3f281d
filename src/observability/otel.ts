import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { VERSION } from '../version.js';
import type { SpanAttributes, TraceHeaders, TraceSpan, Tracing, TracingSettings } from './spans.js';

const propagator = new W3CTraceContextPropagator();

const getter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  // Only a string counts: a header sent twice arrives as an array, which W3C Trace Context says to ignore.
  get: (carrier: Record<string, unknown>, key: string) => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
};

const setter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

function defined(attributes: SpanAttributes | undefined): Attributes | undefined {
  if (!attributes) return undefined;
  const out: Attributes = {};
  for (const key in attributes) if (attributes[key] !== undefined) out[key] = attributes[key];
  return out;
}

function wrap(tracer: Tracer, span: Span): TraceSpan {
  const { traceId, spanId } = span.spanContext();
  let headers: TraceHeaders | undefined;
  return {
    traceId,
    spanId,
    get headers() {
      if (!headers) {
        const carrier: Record<string, string> = {};
        propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, setter);
        headers = carrier as unknown as TraceHeaders;
      }
      return headers;
    },
    child(name, attributes, startTime) {
      const parent = trace.setSpan(ROOT_CONTEXT, span);
      return wrap(
        tracer,
        tracer.startSpan(
          name,
          { kind: SpanKind.INTERNAL, attributes: defined(attributes), ...(startTime !== undefined && { startTime }) },
          parent,
        ),
      );
    },
    set(attributes) {
      span.setAttributes(defined(attributes)!);
    },
    end(error, endTime) {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      span.end(endTime);
    },
  };
}

/**
 * A tracer provider of its own, never registered globally (nothing is patched), batching to OTLP/HTTP; the SDK reads
 * the OTEL_* variables. Parents are passed explicitly, so no context manager is installed.
 */
export function createOtelTracing(settings: TracingSettings): Tracing {
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: VERSION }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('toolgate', VERSION);
  return {
    start(name, kind, parent, attributes) {
      const context = parent ? propagator.extract(ROOT_CONTEXT, parent as Record<string, unknown>, getter) : ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        { kind: kind === 'server' ? SpanKind.SERVER : SpanKind.CONSUMER, attributes: defined(attributes) },
        context,
      );
      return wrap(tracer, span);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
