import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { execute } from '../../helpers/app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ACME = { authorization: 'Bearer acme-key-0123456789' };
const ACME_READER = { authorization: 'Bearer acme-reader-0123456789' };
const GLOBEX = { authorization: 'Bearer globex-key-0123456789' };
const KEYS = [
  { id: 'acme-agent', sha256: sha256('acme-key-0123456789'), tenant: 'acme', scopes: ['execute'] },
  { id: 'acme-reader', sha256: sha256('acme-reader-0123456789'), tenant: 'acme', scopes: ['execute'], tools: ['Read', 'L*'] },
  { id: 'globex-agent', sha256: sha256('globex-key-0123456789'), tenant: 'globex', scopes: ['execute'] },
];

let g: AsyncGateway | undefined;
afterEach(async () => {
  await g?.close();
  g = undefined;
});

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});
/** A result as two runs of the same call agree on it: everything but the time it took and the file's mtime. */
const stable = (body: unknown) =>
  JSON.parse(
    JSON.stringify(body, (key, value) => {
      if (key === 'time_ms' || key === 'file_mtime_ms') return 0;
      return typeof value === 'string' ? value.replace(/"file_mtime_ms":[0-9.]+/g, '"file_mtime_ms":0') : value;
    }),
  );

/** A file of tenant acme's workspace (its folder made), where its keys' calls find it. */
async function acmeFile(gateway: AsyncGateway, name: string): Promise<string> {
  await mkdir(join(gateway.workspace, 'acme'), { recursive: true });
  return join(gateway.workspace, 'acme', name);
}

async function jobCounts(gateway: AsyncGateway) {
  return gateway.executions.queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
}

/** "mode":"async" queues the batch as a BullMQ job; GET /executions/{id} serves it to its tenant. */
describe('async executions', () => {
  it('202 with the execution id and where to poll; queued until a worker takes it, then completed', async () => {
    g = await asyncGateway({ config: { keys: KEYS } });
    await writeFile(await acmeFile(g, 'a.txt'), 'alpha\n');
    const { status, body, headers } = await g.submit({ tool_calls: [call('c1', 'Read', { path: 'a.txt' })] }, ACME);
    expect(status).toBe(202);
    expect(body).toEqual({
      execution_id: expect.stringMatching(/^exec_[0-9a-f]{32}$/),
      status: 'queued',
      status_url: `/executions/${body.execution_id}`,
    });
    expect(headers.location).toBe(body.status_url);
    expect((await g.read(body.execution_id, ACME)).body).toEqual({ execution_id: body.execution_id, status: 'queued' });

    g.startWorkers();
    const done = await g.until(body.execution_id, ['completed'], ACME);
    expect(done.results).toMatchObject([{ tool_call_id: 'c1', status: 'success', text: '     1\talpha' }]);
  });

  it.each(['openai', 'anthropic', 'gemini', 'responses'])(
    '%s: results and messages equal what the synchronous request answers',
    async (format) => {
      g = await asyncGateway({ config: { keys: KEYS } });
      g.startWorkers();
      await writeFile(await acmeFile(g, 'a.txt'), 'alpha\n');
      // Two sessions, so that each side runs the Write itself rather than replaying the other's; each creates w.txt.
      const batch = (session: string) => ({
        session_id: session,
        format,
        tool_calls: [
          call('c1', 'Read', { path: 'a.txt' }),
          call('c2', 'Write', { path: 'w.txt', content: 'x' }),
          call('c3', 'Nope', {}),
          call('c4', 'Read', { path: 'missing.txt' }),
        ],
      });
      const submitted = await g.submit(batch('async'), ACME);
      const done = await g.until(submitted.body.execution_id, ['completed'], ACME);
      await rm(await acmeFile(g, 'w.txt'));
      const sync = await execute(g.app, batch('sync'), ACME);
      expect(sync.status).toBe(200);
      expect(stable({ results: done.results, messages: done.messages })).toEqual(stable(sync.body));
    },
  );

  it('the job carries the caller as its key resolved it (tenant, key id, tools, session) and no secret', async () => {
    g = await asyncGateway({ config: { keys: KEYS } });
    const { body } = await g.submit(
      { session_id: 'sess-9', tool_calls: [call('c1', 'Write', { path: 'w.txt', content: 'x' })] },
      ACME_READER,
    );
    const job = await g.executions.queue.getJob(body.execution_id);
    expect(job!.data).toMatchObject({
      tenant: 'acme',
      key_id: 'acme-reader',
      tools: ['Read', 'L*'],
      session_id: 'sess-9',
      format: 'openai',
    });
    const redis = new Redis(inject('redisUrl'));
    const raw = JSON.stringify(await redis.hgetall(`{${g.prefix}}:queue:executions:${body.execution_id}`).finally(() => redis.quit()));
    expect(raw).toContain('acme-reader');
    for (const secret of ['acme-reader-0123456789', KEYS[1]!.sha256]) expect(raw).not.toContain(secret);

    // The key's tool list holds in the worker: Write is not among its tools.
    g.startWorkers();
    const done = await g.until(body.execution_id, ['completed'], ACME_READER);
    expect(done.results[0].error.code).toBe('UNKNOWN_TOOL');
  });

  it("the job carries the model that proposed the calls to the worker's per-call log lines", async () => {
    g = await asyncGateway({ config: { keys: KEYS } });
    const message = {
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'LS', input: {} }],
    };
    const { body } = await g.submit(message, ACME);
    expect((await g.executions.queue.getJob(body.execution_id))!.data.model).toBe('claude-sonnet-4-5-20250929');
    g.startWorkers();
    await g.until(body.execution_id, ['completed'], ACME);
    expect(g.logs.find((l) => l.msg === 'tool call' && l.call_id === 'toolu_1')).toMatchObject({ model: 'claude-sonnet-4-5-20250929' });
  });

  it("another tenant's execution, an unknown id and a malformed id are all 404", async () => {
    g = await asyncGateway({ config: { keys: KEYS } });
    const { body } = await g.submit({ tool_calls: [call('c1', 'LS', {})] }, ACME);
    expect((await g.read(body.execution_id, GLOBEX)).status).toBe(404);
    expect((await g.read(body.execution_id, GLOBEX)).body.error.code).toBe('NOT_FOUND');
    expect((await g.read(`exec_${'0'.repeat(32)}`, ACME)).status).toBe(404);
    expect((await g.read('not-an-id', ACME)).status).toBe(404);
    // Another key of the same tenant sees it.
    expect((await g.read(body.execution_id, ACME_READER)).status).toBe(200);
  });

  it('a side-effecting call id already run in the session is replayed, not run again', async () => {
    g = await asyncGateway({ config: { keys: KEYS } });
    g.startWorkers();
    const batch = { session_id: 's1', tool_calls: [call('w1', 'Write', { path: 'once.txt', content: 'one' })] };
    const first = await g.until((await g.submit(batch, ACME)).body.execution_id, ['completed'], ACME);
    const second = await g.until((await g.submit(batch, ACME)).body.execution_id, ['completed'], ACME);
    expect(first.results[0]).toMatchObject({ status: 'success', replayed: false });
    expect(second.results[0]).toMatchObject({ status: 'success', replayed: true });
  });

  it.each([
    ['mode other than sync and async', { mode: 'later' }, /mode must be "sync" or "async"/],
    ['a malformed callback_url', { callback_url: 'not a url' }, /callback_url must be an absolute http\(s\) URL/],
    ['a callback_url that is not http(s)', { callback_url: 'ftp://example.com/x' }, /callback_url must be an absolute http\(s\) URL/],
    ['a callback_url with no callback_secret configured', { callback_url: 'https://example.com/hook' }, /needs async.callback_secret/],
    ['an Idempotency-Key', { idempotency: true }, /Idempotency-Key applies to synchronous requests/],
  ])('%s: 400 and nothing queued', async (_name, extra, message) => {
    g = await asyncGateway({ config: { keys: KEYS } });
    const { idempotency, ...fields } = extra as Record<string, unknown>;
    const headers = idempotency ? { ...ACME, 'idempotency-key': 'k1' } : ACME;
    const response = await execute(g.app, { mode: 'async', ...fields, tool_calls: [call('c1', 'LS', {})] }, headers);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('BAD_REQUEST');
    expect(response.body.error.message).toMatch(message);
    expect(await jobCounts(g)).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 });
  });

  it('a finished execution is served for async.retention_ms, then 404', async () => {
    g = await asyncGateway({ config: { keys: KEYS, async: { retention_ms: 1_500 } } });
    g.startWorkers();
    const { body } = await g.submit({ tool_calls: [call('c1', 'LS', {})] }, ACME);
    await g.until(body.execution_id, ['completed'], ACME);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await g.read(body.execution_id, ACME)).status).toBe(404);
  });

  it('at most async.retention_count finished executions stay in Redis, the oldest removed first', async () => {
    g = await asyncGateway({ config: { keys: KEYS, async: { retention_count: 2 } } });
    g.startWorkers();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { body } = await g.submit({ tool_calls: [call(`c${i}`, 'LS', {})] }, ACME);
      await g.until(body.execution_id, ['completed'], ACME);
      ids.push(body.execution_id);
    }
    expect((await jobCounts(g)).completed).toBe(2);
    expect((await g.read(ids[0]!, ACME)).status).toBe(404);
    expect((await g.read(ids[3]!, ACME)).status).toBe(200);
  });

  it('logs one line per state change with the execution id; metrics show depth by state and job durations', async () => {
    g = await asyncGateway({ config: { keys: KEYS } });
    const { body } = await g.submit({ tool_calls: [call('c1', 'LS', {})] }, ACME);
    const queuedMetrics = (await g.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(queuedMetrics).toContain('toolgate_async_jobs{state="waiting"} 1');
    g.startWorkers();
    await g.until(body.execution_id, ['completed'], ACME);
    const lines = g.logs.filter((l) => l.execution_id === body.execution_id && typeof l.msg === 'string' && l.msg.startsWith('execution '));
    expect(lines.map((l) => l.msg)).toEqual(['execution queued', 'execution running', 'execution completed']);
    const metrics = (await g.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('toolgate_async_jobs{state="completed"} 1');
    expect(metrics).toContain('toolgate_async_jobs{state="waiting"} 0');
    expect(metrics).toMatch(/toolgate_async_job_duration_seconds_count\{outcome="completed"\} 1/);
  });
});
