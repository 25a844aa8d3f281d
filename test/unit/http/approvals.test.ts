import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { configFrom, inspectConfig } from '../../../src/config/load.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { prepare } from '../../../src/startup.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import type { WebhookDelivery, WebhookOutbox } from '../../../src/webhooks/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/** An outbox that keeps what it is sent: what the webhook would get, in order. */
function recordingOutbox(): WebhookOutbox & { sent: WebhookDelivery[] } {
  const sent: WebhookDelivery[] = [];
  return { sent, send: (d) => void sent.push(d), close: async () => undefined };
}

const WEBHOOK = { webhook_url: 'https://hooks.example.com/toolgate', webhook_secret: 'whsec-0123456789abcdef' };

describe('approval routes: the object, its preview, one decision', () => {
  let t: TestApp;
  afterEach(() => t.close());

  const ask = async (name: string, args: Record<string, unknown>) => {
    const { body } = await execute(t.app, { session_id: 's1', tool_calls: [{ id: `c${Math.random()}`, name, arguments: args }] });
    expect(body.results[0].error.code).toBe('APPROVAL_REQUIRED');
    return body.results[0].error.details.approval_id as string;
  };
  const get = async (url: string) => t.app.inject({ method: 'GET', url });
  const decide = (id: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/approvals/${id}`, payload, headers });

  it('a Write of a new file shows it whole; an Edit shows its unified diff; the webhook hears of both and the decision', async () => {
    const outbox = recordingOutbox();
    t = await buildTestApp({
      outbox,
      config: { approvals: WEBHOOK, builtins: { Write: { requires_approval: true }, Edit: { requires_approval: true } } },
    });
    await writeFile(join(t.workspace, 'a.txt'), 'one\ntwo\nthree\n');
    const write = await ask('Write', { path: 'new.txt', content: 'hello\n' });
    const edit = await ask('Edit', { path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    const created = (await get(`/approvals/${write}`)).json();
    expect(created.preview).toEqual({
      kind: 'diff',
      path: 'new.txt',
      diff: '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello\n',
      new_file: true,
      base: null,
      truncated: false,
      file_changed: false,
    });
    const edited = (await get(`/approvals/${edit}`)).json();
    expect(edited.preview.diff).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n');
    expect(edited.preview.base).toMatchObject({ file_size_bytes: 14 });
    expect(outbox.sent.map((d) => [d.headers['x-toolgate-event'], d.headers['x-toolgate-approval-id']])).toEqual([
      ['approval.created', write],
      ['approval.created', edit],
    ]);
    expect(JSON.parse(outbox.sent[0]!.body)).toMatchObject({
      event: 'approval.created',
      approval: { id: write, arguments: { path: 'new.txt', content: 'hello\n' } },
    });
    // Asking again about a pending request opens nothing and tells nobody.
    await ask('Edit', { path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    expect(outbox.sent).toHaveLength(2);

    await writeFile(join(t.workspace, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    expect((await get(`/approvals/${edit}`)).json().preview.file_changed).toBe(true);

    expect((await decide(edit, { decision: 'deny', reason: 'no' })).json()).toMatchObject({
      status: 'denied',
      decided_by: 'local',
      reason: 'no',
      decided_at: t.clock.now(),
    });
    expect(outbox.sent.at(-1)!.headers['x-toolgate-event']).toBe('approval.decided');
    const again = await decide(edit, { decision: 'approve' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('already denied by local'),
      details: { status: 'denied', decided_by: 'local', reason: 'no' },
    });
    expect((await get('/approvals?status=decided')).json().approvals.map((a: { id: string }) => a.id)).toEqual([edit]);
    expect((await get('/approvals')).json().approvals.map((a: { id: string }) => a.id)).toEqual([write]);
  });

  it('GET /approvals?status= takes each status a request can have, and decided for all decided ones; limit counts the matches', async () => {
    t = await buildTestApp({ config: { builtins: { Write: { requires_approval: true } } } });
    const ids: Record<string, string> = {};
    for (const name of ['ran', 'unused', 'denied', 'refused', 'waiting'])
      ids[name] = await ask('Write', { path: `${name}.txt`, content: 'x' });
    for (const [name, decision] of [
      ['ran', 'approve'],
      ['unused', 'approve'],
      ['denied', 'deny'],
      ['refused', 'deny'],
    ] as const) {
      t.clock.advance(1);
      expect((await decide(ids[name]!, { decision })).statusCode).toBe(200);
    }
    const { body } = await execute(t.app, {
      session_id: 's1',
      tool_calls: [{ id: 'again', name: 'Write', arguments: { path: 'ran.txt', content: 'x' } }],
    });
    expect(body.results[0].status).toBe('success');
    const list = async (query: string) => {
      const answer = await get(`/approvals?${query}`);
      expect(answer.statusCode).toBe(200);
      return answer
        .json()
        .approvals.map((a: { id: string; status: string }) => `${Object.keys(ids).find((k) => ids[k] === a.id)}:${a.status}`);
    };
    expect(await list('status=pending')).toEqual(['waiting:pending']);
    expect(await list('status=approved')).toEqual(['unused:approved', 'ran:approved']);
    expect(await list('status=denied')).toEqual(['refused:denied', 'denied:denied']);
    expect(await list('status=denied&limit=1')).toEqual(['refused:denied']);
    expect(await list('status=expired')).toEqual([]);
    expect(await list('status=decided')).toEqual(['refused:denied', 'denied:denied', 'unused:approved', 'ran:approved']);
    // Past its expiry, an approval whose call never came back is expired; the one that ran stays approved.
    t.clock.advance(t.config.state.approval_ttl_ms);
    expect(await list('status=expired')).toEqual(['unused:expired']);
    expect(await list('status=approved')).toEqual(['ran:approved']);
    expect(await list('status=pending')).toEqual([]);
    expect(await list('status=decided&limit=3')).toEqual(['refused:denied', 'denied:denied', 'unused:expired']);
    const bad = await get('/approvals?status=approve');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('BAD_REQUEST');
  });

  it('an unknown or expired id is 404 with the envelope; a decision from another origin is refused', async () => {
    t = await buildTestApp({ config: { builtins: { Write: { requires_approval: true } } } });
    const id = await ask('Write', { path: 'x.txt', content: 'x' });
    expect((await decide(id, { decision: 'approve' }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await decide(id, { decision: 'approve' }, { origin: 'http://localhost:80', host: 'localhost:80' })).statusCode).toBe(200);
    const unknown = await get('/approvals/apr_nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('unknown, expired') } });
    const late = await ask('Write', { path: 'y.txt', content: 'y' });
    t.clock.advance(t.config.state.approval_ttl_ms);
    expect((await get(`/approvals/${late}`)).statusCode).toBe(404);
    expect((await decide(late, { decision: 'approve' })).statusCode).toBe(404);
    expect((await get('/approvals?limit=0')).statusCode).toBe(400);
  });
});

describe('approvals.webhook_url at start-up', () => {
  const dispatchers = createHttpDispatchers();
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [
      'http://127.0.0.1:9/hook',
      'approvals.webhook_url: 127.0.0.1 is not a public address; it may reach loopback or private networks only with approvals.webhook_allow_private_network',
    ],
    ['http://localhost/hook', 'approvals.webhook_url: localhost is not a public address'],
    ['not a url', 'approvals.webhook_url: "not a url" is not an absolute URL'],
    ['ftp://example.com/x', 'approvals.webhook_url: must be an http(s) URL, got ftp:'],
  ])('%s stops start-up, naming the setting', async (url, problem) => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-cfg-'));
    const file = join(dir, 'toolgate.yaml');
    await writeFile(
      file,
      JSON.stringify({
        workspace: join(dir, 'ws'),
        spill: { url: `file://${join(dir, 'spill')}` },
        approvals: { webhook_url: url, webhook_secret: WEBHOOK.webhook_secret },
      }),
    );
    const started = prepare(inspectConfig({}, file), {}, dispatchers, createMetrics({ processMetrics: false }), pino({ level: 'silent' }));
    await expect(started).rejects.toThrow(problem);
  });

  it('a webhook_url without webhook_secret is a problem too', () => {
    expect(() => configFrom({ approvals: { webhook_url: WEBHOOK.webhook_url } })).toThrow(
      'approvals.webhook_secret: required with approvals.webhook_url',
    );
  });
});
