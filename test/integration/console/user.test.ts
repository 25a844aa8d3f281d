import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';
import { MemoryWebhookOutbox } from '../../../src/webhooks/index.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { launchBrowser, type Browser } from '../../helpers/browser.js';
import { forUser, ON_BEHALF_KEYS } from '../../helpers/users.js';
import { Receiver, SECRET } from '../../suites/webhook-outbox.suite.js';
import { createTestDispatchers } from '../http-tools/helpers.js';
import { decideByApi, KEY_ENTRIES, KEYS, requestFor, signIn } from './helpers.js';

/**
 * An approval for a user, end to end on loopback: the webhook a real HTTP server receives names the user, and the console in chromium
 * shows whom the pending request is for and, once decided, whom the decision was for.
 */
describe('the user an approval is for, in webhooks and on the console', () => {
  let browser: Browser;
  let hooks: Receiver;
  let outbox: MemoryWebhookOutbox;
  let t: TestApp;
  let base: string;
  const dispatchers = createTestDispatchers();

  beforeAll(async () => {
    browser = await launchBrowser();
    hooks = await new Receiver().start();
    outbox = new MemoryWebhookOutbox({
      secret: SECRET,
      allowPrivateNetwork: true,
      dispatchers,
      retry: { retries: 3, backoffMs: 50, timeoutMs: 2_000 },
      deliveries: createMetrics({ processMetrics: false }).webhookDeliveries,
      logger: pino({ level: 'silent' }),
    });
    t = await buildTestApp({
      outbox,
      config: {
        keys: [...KEY_ENTRIES, ...ON_BEHALF_KEYS],
        builtins: { Write: { requires_approval: true } },
        approvals: { webhook_url: hooks.url, webhook_secret: SECRET, webhook_allow_private_network: true, webhook_backoff_ms: 50 },
      },
    });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await outbox?.close();
    await hooks?.close();
    await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
  });

  it('approval.created and approval.decided carry `user`; the console shows it on the request and in recent decisions', async () => {
    const response = await fetch(`${base}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...forUser('alice@example.com') },
      body: JSON.stringify({
        session_id: 'chat-7',
        tool_calls: [{ id: 'w1', name: 'Write', arguments: { path: 'notes.txt', content: 'hi\n' } }],
      }),
    });
    const id = ((await response.json()) as any).results[0].error.details.approval_id as string;

    await hooks.until(1);
    expect(JSON.parse(hooks.got[0]!.body)).toMatchObject({ event: 'approval.created', approval: { id, user: 'alice@example.com' } });

    const page = await browser.context.newPage();
    await signIn(page, base, KEYS.admin);
    const request = requestFor(page, 'Write', 'notes.txt');
    await request.waitFor();
    expect(await request.locator('dt:has-text("User") + dd').textContent()).toBe('alice@example.com');

    expect((await decideByApi(base, id, 'approve', 'fine')).status).toBe(200);
    await hooks.until(2);
    expect(JSON.parse(hooks.got[1]!.body)).toMatchObject({ event: 'approval.decided', approval: { id, user: 'alice@example.com' } });
    await expect
      .poll(() => page.locator('#decisions').textContent(), { timeout: 5_000 })
      .toContain('Write notes.txt for alice@example.com: approved by ops-alice');
  });
});
