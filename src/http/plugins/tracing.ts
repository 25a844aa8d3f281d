import type { FastifyInstance } from 'fastify';
import type { TraceSpan, Tracing } from '../../observability/spans.js';

/**
 * One server span per request, continuing the caller's `traceparent`/`tracestate`, named by method and route (never the URL, whose query
 * may carry a search), its trace_id and span_id on every log line of the request. Registered first among the request hooks, so a request
 * refused by a later one is traced too.
 */
export function installTracing(app: FastifyInstance, tracing: Tracing): void {
  app.decorateRequest('span', undefined);
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const span = tracing.start(`${request.method} ${route}`, 'server', request.headers, {
      'http.request.method': request.method,
      'http.route': route,
      'toolgate.request_id': request.id,
    });
    request.span = span;
    request.log = request.log.child({ trace_id: span.traceId, span_id: span.spanId });
  });
  app.addHook('onResponse', async (request, reply) => {
    request.span?.set({ 'http.response.status_code': reply.statusCode });
    request.span?.end(reply.statusCode >= 500 ? String(reply.statusCode) : undefined);
  });
  app.addHook('onRequestAbort', async (request) => {
    request.span?.end('client aborted');
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span; absent with tracing off. */
    span?: TraceSpan;
  }
}
