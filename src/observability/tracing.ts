/** Traces, off unless an OTLP endpoint is set: the SDK (./otel.ts) is loaded only then, so without it nothing is paid. */

import type { Tracing, TracingSettings } from './spans.js';

const PROTOCOLS = new Set(['http/json', 'http/protobuf']);

/** `key=value,key=value`, values percent-encoded (OTel spec). */
function parseHeaders(name: string, value: string | undefined, problems: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (value === undefined || value.trim() === '') return headers;
  for (const pair of value.split(',')) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, at).trim();
    if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      problems.push(`${name}: expected key=value pairs separated by commas; "${pair.trim().slice(0, 40)}" is not one`);
      continue;
    }
    try {
      headers[key.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      problems.push(`${name}: the value of ${key} is not valid percent-encoding`);
    }
  }
  return headers;
}

function httpUrl(name: string, value: string, problems: string[]): URL | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url;
  problems.push(`${name}: "${value.slice(0, 200)}" is not an http(s) URL; traces are sent over OTLP/HTTP (e.g. http://collector:4318)`);
  return undefined;
}

/**
 * `settings` undefined when off (no OTLP endpoint, or OTEL_SDK_DISABLED=true). As the OTel spec says: the traces
 * endpoint is used as is, the general one gets `/v1/traces`, and traces-specific variables win.
 */
export function tracingSettings(env: NodeJS.ProcessEnv): { settings?: TracingSettings; problems: string[] } {
  const problems: string[] = [];
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || undefined;
  if ((general === undefined && traces === undefined) || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { problems };
  let url: string | undefined;
  if (traces !== undefined) url = httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces, problems)?.href;
  else {
    const base = httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', general!, problems);
    if (base) url = `${base.href.replace(/\/+$/, '')}/v1/traces`;
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && !PROTOCOLS.has(protocol)) {
    problems.push(
      `OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol.slice(0, 40)}" is not supported; toolgate exports over OTLP/HTTP (spans are sent as JSON, which collectors accept on the same port)`,
    );
  }
  const headers = {
    ...parseHeaders('OTEL_EXPORTER_OTLP_HEADERS', env.OTEL_EXPORTER_OTLP_HEADERS, problems),
    ...parseHeaders('OTEL_EXPORTER_OTLP_TRACES_HEADERS', env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, problems),
  };
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || 'toolgate';
  if (problems.length > 0 || url === undefined) return { problems };
  return { settings: { url, headers, serviceName }, problems };
}

export async function startTracing(settings: TracingSettings | undefined): Promise<Tracing | undefined> {
  if (!settings) return undefined;
  const { createOtelTracing } = await import('./otel.js');
  return createOtelTracing(settings);
}
