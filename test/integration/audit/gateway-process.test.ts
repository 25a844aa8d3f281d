import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import { verifyChain } from '../../../src/audit/index.js';
import { createS3AuditStore } from '../../../src/audit/s3-store.js';
import { S3Client } from '../../../src/spill/index.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { S3RVER_CREDENTIALS, s3StoreOptions, TEST_BUCKET } from '../../helpers/s3.js';

const CLI = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const START_MS = 45_000;

let scratch: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  scratch = realpathSync(await mkdtemp(join(tmpdir(), 'toolgate-audit-kill-')));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(scratch, { recursive: true, force: true });
});

const base = () => Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));

/** `toolgate serve` on `port`, its trail under scratch/audit unless `more` says otherwise; resolves once it is ready. */
async function gateway(port: number, more: Record<string, string> = {}): Promise<ChildProcess> {
  const env = {
    ...base(),
    PORT: String(port),
    TOOLGATE_AUDIT_URL: `file://${join(scratch, 'audit')}`,
    TOOLGATE_CONFIG: '',
    LOG_LEVEL: 'warn',
    ...more,
  };
  // The chain's name comes from the host name; the test finds it by listing the chains.
  const child = spawn(process.execPath, ['--import', TSX, CLI, 'serve'], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited: ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`gateway not ready within ${START_MS} ms: ${stderr}`);
}

/** Callers writing files as fast as the gateway answers, until `stop`; the call ids it answered with success. */
function load(port: number, callers: number): { stop(): void; answered: Set<string>; done: Promise<void> } {
  const answered = new Set<string>();
  let running = true;
  let n = 0;
  const one = async (caller: number) => {
    while (running) {
      const id = `w${caller}_${n++}`;
      const body = JSON.stringify({
        session_id: `s${caller}`,
        tool_calls: [
          { id, name: 'Write', arguments: { path: `${id}.txt`, content: id } },
          { id: `r_${id}`, name: 'Read', arguments: { path: `${id}.txt` } },
        ],
      });
      try {
        const response = await fetch(`http://127.0.0.1:${port}/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const json = (await response.json()) as { results: Array<{ status: string }> };
        if (json.results[0]!.status === 'success') answered.add(id);
      } catch {
        // The process was killed mid-request: this call was never answered.
      }
    }
  };
  const done = Promise.all(Array.from({ length: callers }, (_, i) => one(i))).then(() => undefined);
  return { stop: () => (running = false), answered, done };
}

describe('a gateway process on an S3-compatible bucket', () => {
  it(
    "writes every answered call's record there, in one chain that toolgate audit verify finds whole, and a changed object it names",
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      const prefix = `audit-process-${port}`;
      const s3 = {
        S3_ENDPOINT: inject('s3Endpoint'),
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      };
      const url = `s3://${TEST_BUCKET}/${prefix}`;
      const child = await gateway(port, { ...s3, TOOLGATE_AUDIT_URL: url });
      const traffic = load(port, 4);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      traffic.stop();
      await traffic.done;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      expect(traffic.answered.size).toBeGreaterThan(5);

      const store = createS3AuditStore({ ...s3StoreOptions(inject('s3Endpoint'), prefix) });
      const [chain, ...others] = await store.chains();
      expect(others).toEqual([]);
      const recorded = new Set<string>();
      for (const segment of await store.segments(chain!))
        for await (const line of store.lines(chain!, segment)) recorded.add(JSON.parse(line).call_id);
      expect([...traffic.answered].filter((id) => !recorded.has(id))).toEqual([]);

      const verify = (env: Record<string, string>) =>
        new Promise<{ code: number; stdout: string }>((resolve) =>
          execFile(
            process.execPath,
            ['--import', TSX, CLI, 'audit', 'verify', '--url', url],
            { cwd: scratch, env: { ...base(), ...env } },
            (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout }),
          ),
        );
      expect(await verify(s3)).toEqual({ code: 0, stdout: `chain ${chain}: ${recorded.size} records, ok\n` });
      const client = new S3Client(s3StoreOptions(inject('s3Endpoint'), prefix));
      const key = `${prefix}/${chain}/${(await store.segments(chain!))[0]}`;
      const text = await (await client.send({ operation: 'GetObject', method: 'GET', key })).body.text();
      await (
        await client.send({ operation: 'PutObject', method: 'PUT', key, body: text.replace('"status":"success"', '"status":"error"') })
      ).body.dump();
      const changed = await verify(s3);
      expect(changed.code).toBe(1);
      expect(changed.stdout).toMatch(/FAILED after 0 good records: .* record 1 was changed/);
    },
  );
});

describe('SIGKILL under load', () => {
  it('loses no record of an answered side-effecting call and never forks the chain', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const first = await gateway(port);
    const traffic = load(port, 8);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    traffic.stop();
    await traffic.done;
    expect(traffic.answered.size).toBeGreaterThan(20);

    // The same chain continues after a restart, over whatever the kill left half-written.
    const second = await gateway(port);
    const more = load(port, 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    more.stop();
    await more.done;
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));

    const store = createFileAuditStore({ dir: join(scratch, 'audit'), rotateBytes: 1 << 30 });
    const chains = await store.chains();
    expect(chains).toHaveLength(1);
    const report = await verifyChain(store, chains[0]!);
    expect(report.problem).toBeUndefined();
    const recorded = new Set<string>();
    for (const segment of await store.segments(chains[0]!)) {
      for await (const line of store.lines(chains[0]!, segment)) {
        const record = JSON.parse(line) as { call_id?: string; status?: string; tool?: string };
        if (record.tool === 'Write' && record.status === 'success') recorded.add(record.call_id!);
      }
    }
    const missing = [...traffic.answered, ...more.answered].filter((id) => !recorded.has(id));
    expect(missing).toEqual([]);
  });
});
