import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import type { AuditTrail } from '../../../src/audit/index.js';
import { MemoryWebhookOutbox } from '../../../src/webhooks/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { random } from '../../helpers/fake-secrets.js';
import { fixtureServer } from '../../helpers/mcp.js';
import { openTrail } from '../../suites/audit-store.suite.js';
import { deliveryDeps, Receiver, SECRET } from '../../suites/webhook-outbox.suite.js';
import { createTestDispatchers, httpToolConfig, startServer, type TestServer } from '../http-tools/helpers.js';

/**
 * Every path out (docs/guardrails.md): a credential reaches no one through a path the
 * output's text does not take (an upstream MCP tool's notifications and every
 * field of its blocks, an error's message and details, file names, approval
 * arguments and the webhook, the log line, the audit trail), and a cut
 * (Read's long line, Grep's shown line, an error excerpt) comes after the
 * scan, so no credential's first characters are left readable.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const GITHUB = `ghp_${random(ALNUM, 36)}`;
const AWS = `AKIA${random('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
/** What a cut before the scan leaves readable: a token's first 16 characters. */
const HEAD = (token: string) => token.slice(0, 16);

function expectClean(text: string): void {
  for (const secret of [GITHUB, AWS]) expect(text.includes(HEAD(secret)), `${HEAD(secret)}… in ${text.slice(0, 200)}`).toBe(false);
}

describe('every path out of the gateway', () => {
  let dir: string;
  let t: TestApp;
  let trail: AuditTrail;
  let outbox: MemoryWebhookOutbox;
  let receiver: Receiver;
  let upstream: TestServer;
  let client: Client;
  const dispatchers = createTestDispatchers();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-paths-out-'));
    receiver = await new Receiver().start();
    upstream = await startServer((req, res) => {
      if (req.url === '/big') {
        // A body over max_response_bytes (4096) whose token straddles the cap, on a line that goes on.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`${'f'.repeat(4079)} ${GITHUB} and more\n${'more\n'.repeat(5000)}`);
        return;
      }
      // A 401 JSON body whose token straddles the 512-character excerpt's end.
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'bad credentials', pad: 'p'.repeat(450), token: GITHUB, more: 'x'.repeat(100) }));
    });
    outbox = new MemoryWebhookOutbox(deliveryDeps(dispatchers, { retry: { retries: 3, backoffMs: 50, timeoutMs: 2_000 } }));
    trail = await openTrail(createFileAuditStore({ dir: join(dir, 'audit'), rotateBytes: 1 << 20 }));
    t = await buildTestApp({
      audit: trail,
      outbox,
      dispatchers,
      config: {
        builtins: { Bash: { enabled: true, sandbox: 'required', output_cap_bytes: 4096 } },
        approvals: { webhook_url: receiver.url, webhook_secret: SECRET, webhook_allow_private_network: true },
        policy: { rules: [{ tool: 'Write', when: { path: '^ask/' }, decision: 'ask' }] },
        mcp_servers: [fixtureServer(join(dir, 'fixture.jsonl'), {}, ['secrets'])],
        tools: [
          httpToolConfig({ method: 'GET', url: `${upstream.origin}/me`, retries: 0, allow_private_network: true }, { name: 'whoami' }),
          httpToolConfig(
            { method: 'GET', url: `${upstream.origin}/big`, retries: 0, allow_private_network: true, max_response_bytes: 4096 },
            { name: 'big_body' },
          ),
        ],
      },
    });
    client = new Client({ name: 'paths-out', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }))));
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await trail?.close();
    await outbox?.close();
    await receiver?.close();
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('/mcp: an upstream tool’s progress message, log data and logger, and every field of every block (a link’s uri, name; a resource’s uri and text; a block of an unknown type; structured content) are redacted', async () => {
    const logs: unknown[] = [];
    const progress: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    const result = await client.callTool({ name: 'fx_leak', arguments: { secret: GITHUB } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(logs).toHaveLength(1);
    expect(progress).toHaveLength(1);
    const heard = JSON.stringify({ logs, progress, result });
    expectClean(heard);
    expect(JSON.stringify(logs)).toContain('[REDACTED:github_token]');
    expect(JSON.stringify(progress)).toContain('uploading with [REDACTED:github_token]');
    const blocks = JSON.stringify(result.content);
    expect(blocks).toContain('https://example.com/cb?token=[REDACTED:github_token]');
    expect(blocks).toContain('link [REDACTED:github_token]');
  });

  it('POST /execute: every field of every content block and the data, and the result counts what the notifications carried too', async () => {
    const { body } = await execute(t.app, [{ id: 'm1', name: 'fx_leak', arguments: { secret: GITHUB } }]);
    const result = body.results[0];
    expectClean(JSON.stringify(body));
    expect(result.status).toBe('success');
    expect(result.data.redactions.github_token).toBeGreaterThanOrEqual(4);
  });

  it('an MCP error result: its text is cut for the message after the scan (a token across the 2,000-character cut)', async () => {
    const { body } = await execute(t.app, [{ id: 'm2', name: 'fx_leak_error', arguments: { secret: ` ${GITHUB}`, at: 1975 } }]);
    expect(body.results[0].error.code).toBe('UPSTREAM_ERROR');
    expectClean(JSON.stringify(body));
  });

  it('an HTTP tool’s error: details.body_excerpt is cut after the scan (a token across the 512-character excerpt’s end)', async () => {
    const { body } = await execute(t.app, [{ id: 'h1', name: 'whoami', arguments: {} }]);
    const error = body.results[0].error;
    expect(error.details.status).toBe(401);
    expectClean(JSON.stringify(body));
    expect(error.details.body_excerpt.length).toBeLessThanOrEqual(512);
    expect(error.details.body_excerpt).toMatch(/"token":"(\[REDACTED:github_token\])?$/);
  });

  it('an HTTP tool’s body over max_response_bytes: the head is cut after the scan (a token across the cap)', async () => {
    const { body } = await execute(t.app, [{ id: 'h2', name: 'big_body', arguments: {} }]);
    const result = body.results[0];
    expect(result.status).toBe('partial');
    expectClean(JSON.stringify(body));
    expect(result.data.redactions).toEqual({ github_token: 1 });
    const whole = await t.app.inject({ method: 'GET', url: result.truncated.url });
    expectClean(whole.body);
    expect(whole.body).toContain('[REDACTED:github_token]');
  });

  it('Read: a line over 2,000 characters is cut after the scan, never inside a marker', async () => {
    const lines = [
      `${'d'.repeat(1900)} ${GITHUB} ${'z'.repeat(200)}`,
      // Across the cut: before the scan, 16 and 30 of their characters were left.
      `${'b'.repeat(1983)} ${AWS} and more`,
      `${'c'.repeat(1969)} ${GITHUB} and more`,
    ];
    await writeFile(join(t.workspace, 'long.json'), `${lines.join('\n')}\n`);
    const { body } = await execute(t.app, [{ id: 'r1', name: 'Read', arguments: { path: 'long.json' } }]);
    const text: string = body.results[0].text;
    expectClean(JSON.stringify(body));
    expect(text).toContain(`${'d'.repeat(1900)} [REDACTED:github_token] zzz`);
    // The raw line is cut inside the token; its view is cut after the marker, or before one the cut would split (not counted then).
    expect(text).toContain(`${'c'.repeat(1969)} [REDACTED:github_token] and mo… [`);
    expect(text).toContain(`${'b'.repeat(1983)} … [`);
    expect(body.results[0].data.redactions).toEqual({ github_token: 2 });
  });

  it('Grep: a shown line over 500 characters is cut after the scan', async () => {
    await writeFile(join(t.workspace, 'wide.log'), `needle ${'c'.repeat(470)} ${GITHUB}\n`);
    const { body } = await execute(t.app, [{ id: 'g1', name: 'Grep', arguments: { pattern: 'needle', path: 'wide.log' } }]);
    expectClean(JSON.stringify(body));
    expect(body.results[0].text).toContain('needle');
  });

  it('Bash: a stream over output_cap_bytes is cut after the scan (a token across the cap)', async () => {
    await writeFile(join(t.workspace, 'build.log'), `${'e'.repeat(4079)} ${GITHUB}\n${'more\n'.repeat(5000)}`);
    // Both streams: the cut stream's head is kept up to the cap, its last line too, with a line saying where the rest is.
    const { body } = await execute(t.app, [{ id: 'b1', name: 'Bash', arguments: { command: 'cat build.log; echo done >&2' } }]);
    const result = body.results[0];
    expectClean(JSON.stringify(body));
    // Cut before the marker the cap would split; the spilled whole counts it.
    expect(result.text).toContain(`${'e'.repeat(4079)} \n[stdout cut at 4096 of`);
    expect(result.data.redactions).toEqual({ github_token: 1 });
    const whole = await t.app.inject({ method: 'GET', url: `/outputs/${/\/outputs\/(\S+)\]/.exec(result.text)![1]}` });
    expect(whole.statusCode).toBe(200);
    expectClean(whole.body);
  });

  it('file names Glob, LS and Grep list', async () => {
    await mkdir(join(t.workspace, 'names'), { recursive: true });
    await writeFile(join(t.workspace, 'names', `${GITHUB}.txt`), 'needle\n');
    const { body } = await execute(t.app, [
      { id: 'n1', name: 'Glob', arguments: { pattern: '**/*.txt', path: 'names' } },
      { id: 'n2', name: 'LS', arguments: { path: 'names' } },
      { id: 'n3', name: 'Grep', arguments: { pattern: 'needle', path: 'names' } },
    ]);
    expectClean(JSON.stringify(body));
    for (const result of body.results) expect(result.text).toContain('[REDACTED:github_token].txt');
  });

  it('approval arguments (not only the preview) on the approvals API and in the webhook body; the tool call log line; the audit record', async () => {
    const content = `AWS_ACCESS_KEY_ID is ${AWS}\n`;
    const { body } = await execute(t.app, [{ id: 'w1', name: 'Write', arguments: { path: 'ask/creds.txt', content } }]);
    const id = body.results[0].error.details.approval_id as string;
    const approval = await t.app.inject({ method: 'GET', url: `/approvals/${id}` });
    expect(approval.statusCode).toBe(200);
    expectClean(approval.body);
    expect(approval.json().arguments.content).toContain('[REDACTED:aws_access_key_id]');
    await receiver.until(1);
    expectClean(receiver.got.map((g) => g.body).join('\n'));
    expect(receiver.got[0]!.body).toContain('[REDACTED:aws_access_key_id]');

    await execute(t.app, [{ id: 'w2', name: 'Write', arguments: { path: 'plain/creds.txt', content } }]);
    expectClean(JSON.stringify(t.logs));
    const records = (await t.app.inject({ method: 'GET', url: '/audit' })).json().records as Array<Record<string, unknown>>;
    const written = records.find((r) => r.call_id === 'w2')!;
    expect(JSON.stringify(written.arguments)).toContain('[REDACTED:aws_access_key_id]');
    expectClean(JSON.stringify(records));
  });
});
