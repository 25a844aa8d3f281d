import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';
import { MemoryWebhookOutbox } from '../../../src/webhooks/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { createTestDispatchers } from '../http-tools/helpers.js';
import { Receiver, SECRET } from '../../suites/webhook-outbox.suite.js';

/** The relay of docs/approvals.md, run as it is written there, between a real gateway and a stand-in for Slack. */
describe('docs/approvals.md: the Slack relay', () => {
  let slack: Receiver;
  let relay: ChildProcess;
  let relayUrl: string;
  let dir: string;
  let t: TestApp;
  const dispatchers = createTestDispatchers();
  let outbox: MemoryWebhookOutbox;

  beforeAll(async () => {
    slack = await new Receiver().start();
    const page = await readFile(new URL('../../../docs/approvals.md', import.meta.url), 'utf8');
    const code = /```js\n(\/\/ approvals-slack-relay\.mjs[\s\S]*?)```/.exec(page)?.[1];
    if (!code) throw new Error('docs/approvals.md has no relay block');
    dir = await mkdtemp(join(tmpdir(), 'toolgate-relay-'));
    await writeFile(join(dir, 'relay.mjs'), code);
    const port = await freePort();
    relayUrl = `http://127.0.0.1:${port}/`;
    relay = spawn(process.execPath, [join(dir, 'relay.mjs')], {
      env: {
        ...process.env,
        TOOLGATE_WEBHOOK_SECRET: SECRET,
        SLACK_WEBHOOK_URL: slack.url,
        TOOLGATE_CONSOLE_URL: 'https://gw.example.com/console',
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => relay.stdout!.once('data', () => resolve()));
    const settings = { webhook_url: relayUrl, webhook_secret: SECRET, webhook_allow_private_network: true, webhook_backoff_ms: 50 };
    const logger = pino({ level: 'silent' });
    const deliveries = createMetrics({ processMetrics: false }).webhookDeliveries;
    outbox = new MemoryWebhookOutbox({
      secret: SECRET,
      allowPrivateNetwork: true,
      dispatchers,
      retry: { retries: 3, backoffMs: 50, timeoutMs: 2_000 },
      deliveries,
      logger,
    });
    t = await buildTestApp({ outbox, config: { approvals: settings, policy: { rules: [{ tool: 'Edit', decision: 'ask' }] } } });
    await writeFile(join(t.workspace, 'app.ts'), 'export const retries = 3;\n');
  });

  afterAll(async () => {
    relay?.kill();
    await outbox?.close();
    await t?.close();
    await slack?.close();
    await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('tells the channel of a request, with where to decide it, and of its decision', async () => {
    const asked = await execute(t.app, {
      session_id: 'build-42',
      tool_calls: [{ id: 'c1', name: 'Edit', arguments: { path: 'app.ts', old_string: '3', new_string: '5' } }],
    });
    const id = asked.body.results[0].error.details.approval_id as string;
    await slack.until(1);
    expect(JSON.parse(slack.got[0]!.body)).toEqual({
      text: ':raising_hand: Approval needed: Edit app.ts (session build-42, tenant local). Decide at https://gw.example.com/console',
    });
    const decided = await t.app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision: 'deny', reason: 'not now' } });
    expect(decided.statusCode).toBe(200);
    await slack.until(2);
    expect(JSON.parse(slack.got[1]!.body)).toEqual({ text: ':no_entry: Edit app.ts denied by local: not now' });
  });

  it('refuses a body toolgate did not sign, and posts nothing', async () => {
    const before = slack.got.length;
    const forged = await fetch(relayUrl, {
      method: 'POST',
      headers: { 'x-toolgate-signature': 'sha256=00' },
      body: '{"event":"approval.created"}',
    });
    expect(forged.status).toBe(401);
    // The relay answered before it would have posted: nothing can still be on its way.
    expect(slack.got).toHaveLength(before);
  });
});
