import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';

/**
 * Traces through the real `toolgate serve` process: tracing is off
 * unless OTEL_EXPORTER_OTLP_ENDPOINT is set — then nothing is exported and no
 * part of the SDK is even loaded —; set, spans reach the collector, the last
 * of them on shutdown; a malformed endpoint stops start-up.
 */
const START_MS = 45_000;
const CLI = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const RECORD_IMPORTS = pathToFileURL(fileURLToPath(new URL('../../helpers/record-imports.mjs', import.meta.url))).href;
const SDK_PARTS = ['/@opentelemetry/sdk-trace-base/', '/@opentelemetry/exporter-trace-otlp-http/'];

interface Gateway {
  child: ChildProcess;
  logs: Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<number | null>;
  ready: Promise<{ address: string; traces: string }>;
}

const children: ChildProcess[] = [];
let scratch: string;
let receiver: OtlpReceiver;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-otel-proc-'));
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.close();
  await rm(scratch, { recursive: true, force: true });
});

function startGateway(env: Record<string, string>): Gateway {
  const base = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
  const child = spawn(process.execPath, ['--import', TSX, '--import', RECORD_IMPORTS, CLI, 'serve'], {
    cwd: scratch,
    env: { ...base, PORT: '0', RECORD_IMPORTS: join(scratch, 'imports.txt'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let pending = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<{ address: string; traces: string }>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before it was ready:\n${stderr}`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines.filter((l) => l.startsWith('{'))) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'toolgate ready') resolve(entry as never);
      }
    });
    setTimeout(() => reject(new Error(`gateway not ready within ${START_MS} ms:\n${stderr}`)), START_MS).unref();
  });
  ready.catch(() => {});
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, logs, stderr: () => stderr, exited, ready };
}

async function runBatchAndStop(gateway: Gateway): Promise<void> {
  const { address } = await gateway.ready;
  const response = await fetch(`${address}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    body: JSON.stringify([{ id: 'c1', name: 'LS', arguments: { path: '.' } }]),
  });
  expect(response.status).toBe(200);
  gateway.child.kill('SIGTERM');
  expect(await gateway.exited).toBe(0);
}

const loaded = async () => (await readFile(join(scratch, 'imports.txt'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('toolgate serve and OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('unset: no span is exported, and the SDK is never loaded', async () => {
    const gateway = startGateway({});
    expect((await gateway.ready).traces).toMatch(/^off/);
    await runBatchAndStop(gateway);
    expect(receiver.requests).toEqual([]);
    const urls = await loaded();
    for (const part of SDK_PARTS) expect(urls.filter((url) => url.includes(part))).toEqual([]);
    expect(gateway.logs.some((l) => 'trace_id' in l)).toBe(false);
  }, 120_000);

  it('set: the SDK is loaded, and the spans reach the collector by shutdown at the latest (the batch delay is a minute)', async () => {
    const gateway = startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.origin}/`, OTEL_BSP_SCHEDULE_DELAY: '60000' });
    expect((await gateway.ready).traces).toBe(`${receiver.origin}/v1/traces`);
    await runBatchAndStop(gateway);
    const urls = await loaded();
    for (const part of SDK_PARTS)
      expect(
        urls.some((url) => url.includes(part)),
        part,
      ).toBe(true);
    const spans = receiver.spans();
    expect(spans.map((s) => s.name).sort()).toEqual(['POST /execute', 'execute_tool LS']);
    for (const span of spans) expect(span.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(gateway.logs.find((l) => l.msg === 'tool call')).toMatchObject({ trace_id: '0af7651916cd43dd8448eb211c80319c' });
  }, 120_000);

  it('a malformed endpoint, header list or protocol is a start-up problem, listed with the others', async () => {
    const gateway = startGateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      LOG_LEVEL: 'nonsense',
    });
    expect(await gateway.exited).not.toBe(0);
    const stderr = gateway.stderr();
    for (const problem of [
      'OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318"',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"',
      'log_level',
    ]) {
      expect(stderr).toContain(problem);
    }
    expect(receiver.requests).toEqual([]);
  }, 120_000);
});
