import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One exported span, flattened from OTLP/HTTP JSON: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  status?: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port>, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  origin: string;
  /** Every POST body as it arrived (decompressed), to search for what must never be exported. */
  bodies: string[];
  /** Paths and content types of the requests. */
  requests: Array<{ path: string; contentType: string }>;
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function valueOf(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue;
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/**
 * A loopback OTLP/HTTP collector: accepts POST /v1/traces in the JSON
 * encoding (what @opentelemetry/exporter-trace-otlp-http sends) and keeps
 * what arrived. Answers 415 to anything else, so a test sees a wrong encoding.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType });
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !contentType.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      bodies.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    bodies,
    requests,
    spans() {
      return bodies.flatMap((body) =>
        (JSON.parse(body).resourceSpans ?? []).flatMap((rs: any) =>
          (rs.scopeSpans ?? []).flatMap((ss: any) =>
            (ss.spans ?? []).map((s: any): ReceivedSpan => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
              name: s.name,
              kind: s.kind,
              status: s.status,
              attributes: attributes(s.attributes),
              resource: attributes(rs.resource?.attributes),
            })),
          ),
        ),
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
