import { describe, expect, it } from 'vitest';
import { tracingSettings } from '../../../src/observability/tracing.js';

/** The standard OTEL_* variables, read as the OpenTelemetry spec says, checked at start-up. */
describe('tracingSettings', () => {
  it('off unless an OTLP endpoint is set, and off with OTEL_SDK_DISABLED=true', () => {
    expect(tracingSettings({})).toEqual({ problems: [] });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_SERVICE_NAME: 'x' })).toEqual({ problems: [] });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ problems: [] });
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: /v1/traces is appended to its path', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).settings?.url).toBe('http://collector:4318/v1/traces');
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example/base/' }).settings?.url).toBe(
      'https://otel.example/base/v1/traces',
    );
  });

  it('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is, and wins', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://general:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom/path',
    };
    expect(tracingSettings(env).settings?.url).toBe('http://traces:4318/custom/path');
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces' }).settings?.url).toBe(
      'http://traces:4318/v1/traces',
    );
  });

  it('headers: key=value pairs, values percent-decoded, the traces-specific ones winning; the service name defaults to toolgate', () => {
    const { settings } = tracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'Api-Key=abc%3D%3D, x-tenant = acme',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=globex',
    });
    expect(settings).toEqual({
      url: 'http://c:4318/v1/traces',
      headers: { 'api-key': 'abc==', 'x-tenant': 'globex' },
      serviceName: 'toolgate',
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'gw-eu' }).settings?.serviceName).toBe(
      'gw-eu',
    );
  });

  it('every problem at once, each naming its variable; no settings then', () => {
    const { settings, problems } = tracingSettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317',
      OTEL_EXPORTER_OTLP_HEADERS: 'ok=1,broken,=x,bad=%E0%A4%A',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(settings).toBeUndefined();
    expect(problems).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc:\/\/collector:4317" is not an http\(s\) URL/),
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported/),
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_HEADERS: .*"broken"/),
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_HEADERS: .*"=x"/),
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_HEADERS: the value of bad is not valid percent-encoding/),
    ]);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).problems).toEqual([
      expect.stringContaining('OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" is not an http(s) URL'),
    ]);
  });

  it('http/json and http/protobuf are both served (spans go as JSON, which every OTLP/HTTP receiver accepts)', () => {
    for (const protocol of ['http/json', 'http/protobuf']) {
      expect(
        tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol }).problems,
      ).toEqual([]);
    }
  });
});
