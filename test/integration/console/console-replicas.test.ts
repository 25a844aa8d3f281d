import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createRedisStateStore, type RedisStateStore } from '../../../src/state/redis/index.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { launchBrowser, type Browser } from '../../helpers/browser.js';
import { agentCall, CONSOLE_CONFIG, decideByApi, LIVE_MS, msUntil, requestFor, signIn } from './helpers.js';

/** Two gateways on one real Redis, one workspace, as two replicas are deployed; the console open on A. */
describe('the console across replicas', () => {
  let browser: Browser;
  let stores: RedisStateStore[];
  let a: TestApp;
  let b: TestApp;
  let baseA: string;
  let baseB: string;
  let workspace: string;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
    const state = configFrom().state;
    const options = {
      url: inject('redisUrl'),
      keyPrefix: `console-${randomUUID()}`,
      connectTimeoutMs: state.connect_timeout_ms,
      commandTimeoutMs: state.command_timeout_ms,
    };
    stores = [createRedisStateStore(options), createRedisStateStore(options)];
    await Promise.all(stores.map((s) => s.ping()));
    [a, b] = (await Promise.all(stores.map((store) => buildTestApp({ state: store, workspace, config: CONSOLE_CONFIG })))) as [
      TestApp,
      TestApp,
    ];
    baseA = await a.app.listen({ host: '127.0.0.1', port: 0 });
    baseB = await b.app.listen({ host: '127.0.0.1', port: 0 });
    page = await browser.context.newPage();
    await signIn(page, baseA);
    await page.getByRole('heading', { name: /Pending approvals/ }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all((stores ?? []).map((s) => s.close()));
    await rm(workspace, { recursive: true, force: true });
  });

  it('a request made through B appears on A’s console within 2 s; approved there, the agent’s retry through B runs once', async () => {
    // The agent's key is tenant acme's: its calls work in acme's folder of the workspace.
    await mkdir(join(workspace, 'acme'), { recursive: true });
    await writeFile(join(workspace, 'acme', 'notes.md'), '# Notes\n');
    const asked = await agentCall(baseB, 'Write', { path: 'notes.md', content: '# Notes\n\n- ship it\n' });
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const request = requestFor(page, 'Write', 'notes.md');
    expect(await msUntil(() => request.isVisible(), LIVE_MS, 'B’s request on A’s console')).toBeLessThanOrEqual(LIVE_MS);
    expect(await request.getByRole('region', { name: 'Proposed change' }).locator('ins').allTextContents()).toEqual(['+', '+- ship it']);
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.waitFor({ state: 'detached' });
    // The Write needs no Read first here: the file is the one the agent created, unchanged.
    const ran = await agentCall(baseB, 'Write', { path: 'notes.md', content: '# Notes\n\n- ship it\n' });
    expect(ran.status).toBe('success');
    expect(await readFile(join(workspace, 'acme', 'notes.md'), 'utf8')).toBe('# Notes\n\n- ship it\n');
    const again = await agentCall(baseA, 'Write', { path: 'notes.md', content: '# Notes\n\n- ship it\n' });
    expect(again.error?.code).toBe('APPROVAL_REQUIRED');
    await decideByApi(baseB, again.error!.details!.approval_id!, 'deny');
  });

  it('a request decided through B’s API leaves A’s console within 2 s', async () => {
    const asked = await agentCall(baseA, 'Write', { path: 'todo.md', content: 'x\n' });
    const request = requestFor(page, 'Write', 'todo.md');
    await request.waitFor({ timeout: LIVE_MS });
    expect((await decideByApi(baseB, asked.error!.details!.approval_id!, 'deny', 'not today')).status).toBe(200);
    expect(await msUntil(async () => (await request.count()) === 0, LIVE_MS, 'the request off A’s console')).toBeLessThanOrEqual(LIVE_MS);
    await expect.poll(() => page.getByText('not today').count()).toBe(1);
  });
});
