import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../../helpers/browser.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';
import { agentCall, CONSOLE_CONFIG, decideByApi, KEYS, LIVE_MS, msUntil, requestFor, signIn } from './helpers.js';

/**
 * The operators' console in a real chromium against a real gateway on
 * loopback: what a person sees and does, found by the names people and
 * screen readers use (docs/console.md).
 */
let browser: Browser;
let t: TestApp;
let base: string;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await buildTestApp({ config: CONSOLE_CONFIG, tools: [faultyTool('flaky_api')] });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  await mkdir(join(t.workspace, 'acme', 'src'), { recursive: true });
  page = await browser.context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const APP_TS = 'export const retries = 3;\nexport const timeoutMs = 1000;\n';

/** An Edit the policy asks about, sent by the agent: its approval id. */
async function askForEdit(from = 'retries = 3', to = 'retries = 5'): Promise<string> {
  await writeFile(join(t.workspace, 'acme', 'src/app.ts'), APP_TS.replace('retries = 3', from));
  const result = await agentCall(base, 'Edit', { path: 'src/app.ts', old_string: from, new_string: to });
  expect(result.error?.code).toBe('APPROVAL_REQUIRED');
  return result.error!.details!.approval_id!;
}

describe('sign-in', () => {
  it('serves the page with a strict CSP and its own assets only', async () => {
    const response = await page.goto(`${base}/console`);
    const csp = response!.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(requested.every((url) => url.startsWith(base))).toBe(true);
  });

  it('refuses a key without the admin scope, saying so, and a wrong key', async () => {
    await signIn(page, base, KEYS.agent);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('not an admin key');
    await page.getByLabel('API key').fill('tg_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('not valid');
    expect(await page.getByRole('heading', { name: /Pending approvals/ }).isVisible()).toBe(false);
  });

  it('signs in with an admin key kept for the tab only: never in the URL, a cookie, local storage or a log line', async () => {
    await signIn(page, base, KEYS.admin);
    await page.getByRole('heading', { name: /Pending approvals/ }).waitFor();
    expect(page.url()).toBe(`${base}/console`);
    expect(await browser.context.cookies()).toEqual([]);
    expect(await page.evaluate('({ local: localStorage.length, session: Object.values(sessionStorage) })')).toEqual({
      local: 0,
      session: [KEYS.admin],
    });
    // A new tab is a new sign-in.
    const other = await browser.context.newPage();
    await other.goto(`${base}/console`);
    await other.getByRole('button', { name: 'Sign in' }).waitFor();
    await other.close();
  });
});

describe('approvals', () => {
  it('a request appears live with its diff; Approve → the agent’s retry runs once', async () => {
    await page.getByRole('heading', { name: /Pending approvals/ }).waitFor();
    const id = await askForEdit();
    const request = requestFor(page, 'Edit', 'src/app.ts');
    expect(await msUntil(() => request.isVisible(), LIVE_MS, 'the new request on the page')).toBeLessThanOrEqual(LIVE_MS);
    const change = request.getByRole('region', { name: 'Proposed change' });
    expect(await change.locator('del').allTextContents()).toEqual(['-export const retries = 3;']);
    expect(await change.locator('ins').allTextContents()).toEqual(['+export const retries = 5;']);
    expect(await request.textContent()).toContain('build-42');
    expect(await request.textContent()).toContain(id);

    await request.getByLabel('Reason').fill('ticket OPS-7');
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByRole('list').filter({ hasText: 'ticket OPS-7' }).count()).toBe(1);

    const ran = await agentCall(base, 'Edit', { path: 'src/app.ts', old_string: 'retries = 3', new_string: 'retries = 5' });
    expect(ran.status).toBe('success');
    expect(await readFile(join(t.workspace, 'acme', 'src/app.ts'), 'utf8')).toContain('retries = 5');
    // Once: the same call again is a new request, not a second run.
    const again = await agentCall(base, 'Edit', { path: 'src/app.ts', old_string: 'retries = 3', new_string: 'retries = 5' });
    expect(again.error?.code).toBe('APPROVAL_REQUIRED');
    expect(again.error?.details?.approval_id).not.toBe(id);
    await decideByApi(base, again.error!.details!.approval_id!, 'deny');
  });

  it('Deny with a reason → the agent gets PERMISSION_DENIED with it', async () => {
    await askForEdit('retries = 3', 'retries = 9');
    const request = requestFor(page, 'Edit', 'src/app.ts');
    await request.waitFor({ timeout: LIVE_MS });
    await request.getByLabel('Reason').fill('not before the release');
    await request.getByRole('button', { name: 'Deny' }).click();
    await request.waitFor({ state: 'detached' });
    const denied = await agentCall(base, 'Edit', { path: 'src/app.ts', old_string: 'retries = 3', new_string: 'retries = 9' });
    expect(denied.error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringContaining('not before the release') });
  });

  it('a request decided elsewhere leaves the page within 2 s; deciding it here then says so', async () => {
    const id = await askForEdit('retries = 3', 'retries = 7');
    const request = requestFor(page, 'Edit', 'src/app.ts');
    await request.waitFor({ timeout: LIVE_MS });
    // A second tab keeps its copy: the API decision is the other tab.
    // A second tab whose listing is held as it was: it still shows the request when the API decides it.
    const other = await browser.context.newPage();
    const snapshot = await (await fetch(`${base}/approvals?limit=100`, { headers: { authorization: `Bearer ${KEYS.admin}` } })).json();
    await other.route(/\/approvals\?limit=100$/, (route) => route.fulfill({ json: snapshot }));
    await signIn(other, base);
    const stale = requestFor(other, 'Edit', 'src/app.ts');
    await stale.waitFor({ timeout: LIVE_MS });
    expect((await decideByApi(base, id, 'approve', 'by the API')).status).toBe(200);
    expect(await msUntil(async () => (await request.count()) === 0, LIVE_MS, 'the decided request off the page')).toBeLessThanOrEqual(
      LIVE_MS,
    );
    await stale.getByRole('button', { name: 'Deny' }).click();
    await expect
      .poll(() => stale.getByRole('alert').textContent())
      .toMatch(/Already decided elsewhere: .*approved by ops-alice.*by the API/);
    await agentCall(base, 'Edit', { path: 'src/app.ts', old_string: 'retries = 3', new_string: 'retries = 7' });
    await other.close();
  });

  it('says when the file changed after the diff was made', async () => {
    await askForEdit('retries = 3', 'retries = 4');
    const request = requestFor(page, 'Edit', 'src/app.ts');
    await request.waitFor({ timeout: LIVE_MS });
    expect(await request.getByText('The file has changed').isVisible()).toBe(false);
    await writeFile(join(t.workspace, 'acme', 'src/app.ts'), `${APP_TS}// touched by someone else\n`);
    await request.getByText('The file has changed').waitFor({ timeout: LIVE_MS });
    await request.getByRole('button', { name: 'Deny' }).click();
    await request.waitFor({ state: 'detached' });
  });
});

describe('what an approver reads', () => {
  it('a request is named "tool path" with the space, and hidden characters show as code points', async () => {
    const content = 'ok = "\u202Etxt.exe\u202C"\u200B\n';
    const asked = await agentCall(base, 'Write', { path: 'ask/x.txt', content });
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const request = page.getByRole('article', { name: 'Write ask/x.txt', exact: true });
    await request.waitFor({ timeout: LIVE_MS });
    const change = request.getByRole('region', { name: 'Proposed change' });
    expect(await change.locator('ins').allTextContents()).toEqual(['+ok = "<U+202E>txt.exe<U+202C>"<U+200B>']);
    expect(await request.getByRole('group').filter({ hasText: 'Arguments' }).locator('pre').textContent()).toContain(
      '"content": "ok = \\"<U+202E>txt.exe<U+202C>\\"<U+200B>\\n"',
    );
    expect(await request.textContent()).not.toMatch(/[\u200B\u202C\u202E]/);
    await request.getByRole('button', { name: 'Deny' }).click();
    await request.waitFor({ state: 'detached' });
  });
});

describe('breakers', () => {
  it('an open breaker is listed with Reset, which closes it', async () => {
    for (let i = 0; i < 3; i++) await agentCall(base, 'flaky_api', { mode: 'fail' });
    const row = page.getByRole('row', { name: /flaky_api/ });
    await row.waitFor({ timeout: LIVE_MS });
    expect(await row.textContent()).toContain('open');
    await row.getByRole('button', { name: 'Reset' }).click();
    await row.waitFor({ state: 'detached', timeout: LIVE_MS });
    const circuits = (await (await fetch(`${base}/circuits`, { headers: { authorization: `Bearer ${KEYS.admin}` } })).json()) as {
      circuits: Array<{ tool: string }>;
    };
    expect(circuits.circuits.find((c) => c.tool === 'flaky_api')).toMatchObject({ state: 'closed', failures: 0 });
  });
});

describe('keyboard and small screens', () => {
  it('signs in, approves and signs out by keyboard alone', async () => {
    const keys = await browser.context.newPage();
    await keys.goto(`${base}/console`);
    await keys.keyboard.type(KEYS.admin);
    await keys.keyboard.press('Enter');
    await keys.getByRole('heading', { name: /Pending approvals/ }).waitFor();
    const id = await askForEdit('retries = 3', 'retries = 6');
    await requestFor(keys, 'Edit', 'src/app.ts').waitFor({ timeout: LIVE_MS });
    const focused = () => keys.evaluate<string>("document.activeElement?.textContent ?? ''");
    for (let i = 0; i < 30 && (await focused()) !== 'Approve'; i++) await keys.keyboard.press('Tab');
    expect(await focused()).toBe('Approve');
    await keys.keyboard.press('Enter');
    await requestFor(keys, 'Edit', 'src/app.ts').waitFor({ state: 'detached' });
    for (let i = 0; i < 10 && (await focused()) !== 'Sign out'; i++) await keys.keyboard.press('Shift+Tab');
    await keys.keyboard.press('Enter');
    await keys.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await keys.evaluate('sessionStorage.length')).toBe(0);
    const record = await (await fetch(`${base}/approvals/${id}`, { headers: { authorization: `Bearer ${KEYS.admin}` } })).json();
    expect(record).toMatchObject({ status: 'approved', decided_by: 'ops-alice' });
    await agentCall(base, 'Edit', { path: 'src/app.ts', old_string: 'retries = 3', new_string: 'retries = 6' });
    await keys.close();
  });

  it('is readable at 360 px: nothing wider than the screen, the buttons in reach', async () => {
    const small = await browser.context.newPage();
    await small.setViewportSize({ width: 360, height: 740 });
    await signIn(small, base);
    await small.getByRole('heading', { name: /Pending approvals/ }).waitFor();
    const id = await askForEdit('retries = 3', 'retries = 2');
    const request = requestFor(small, 'Edit', 'src/app.ts');
    await request.waitFor({ timeout: LIVE_MS });
    expect(await small.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    for (const name of ['Approve', 'Deny']) {
      const box = (await request.getByRole('button', { name }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
    }
    await decideByApi(base, id, 'deny');
    await small.close();
  });

  it('no log line of the gateway holds the admin key', () => {
    const logs = JSON.stringify(t.logs);
    expect(logs).toContain('approval decided');
    expect(logs).not.toContain(KEYS.admin);
  });
});
