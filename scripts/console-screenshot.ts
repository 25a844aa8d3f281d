/**
 * Makes docs/console.png (or the PNG path given): a gateway of its own on loopback, an agent's calls
 * that leave a pending Edit, a recent decision and an open breaker, and Debian's chromium signed in to
 * the console at 900 px. `npm run docs:console`; commit the picture when it changed.
 *
 * It prints one JSON line of what the page showed and exits; each step has a named bound, so a slow
 * step fails with its name.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/helpers/browser.js';
import { step as bounded } from '../test/helpers/step.js';
import { buildTestApp } from '../test/helpers/app.js';
import { faultyTool } from '../test/helpers/tools.js';
import { agentCall, CONSOLE_CONFIG, decideByApi, requestFor, signIn } from '../test/integration/console/helpers.js';

const STEP_MS = 15_000;
const out = process.argv[2] ?? fileURLToPath(new URL('../docs/console.png', import.meta.url));

/** `work` within STEP_MS, or an error naming the step. */
const step = <T>(name: string, work: () => Promise<T>): Promise<T> => bounded(name, STEP_MS, work);

const browser = await step('launching chromium', launchBrowser);
const gateway = await step('building the gateway', () => buildTestApp({ config: CONSOLE_CONFIG, tools: [faultyTool('flaky_api')] }));
const at = await step('listening', () => gateway.app.listen({ host: '127.0.0.1', port: 0 }));
await mkdir(join(gateway.workspace, 'acme', 'src'), { recursive: true });
await writeFile(
  join(gateway.workspace, 'acme', 'src/app.ts'),
  'export const retries = 3;\nexport const timeoutMs = 1000;\n\nexport function backoff(attempt: number): number {\n  return 100 * 2 ** attempt;\n}\n',
);
const write = await step('the Write asked about', () =>
  agentCall(at, 'Write', { path: 'deploy/prod.env', content: 'REPLICAS=12\n' }, 'release-7'),
);
await step('denying the Write', () =>
  decideByApi(at, write.error!.details!.approval_id!, 'deny', 'prod changes go through the release pipeline'),
);
await step('the Edit asked about', () =>
  agentCall(at, 'Edit', {
    path: 'src/app.ts',
    old_string: 'export const retries = 3;\nexport const timeoutMs = 1000;',
    new_string: 'export const retries = 5;\nexport const timeoutMs = 2500;',
  }),
);
for (let i = 0; i < 3; i++) await step(`failing call ${i + 1} of flaky_api`, () => agentCall(at, 'flaky_api', { mode: 'fail' }));

const page: Page = await step('opening a page', () => browser.context.newPage());
page.setDefaultTimeout(STEP_MS);
await page.setViewportSize({ width: 900, height: 900 });
await step('signing in', () => signIn(page, at));
const seen = {
  pending: await step('the pending Edit', async () => (await requestFor(page, 'Edit', 'src/app.ts').waitFor(), true)),
  breaker: await step('the open breaker', async () => (await page.getByRole('row', { name: /flaky_api/ }).waitFor(), true)),
  decision: await step('the recent decision', async () => (await page.getByText('prod changes go through').waitFor(), true)),
};
// The request id is random: masked, so the picture is the same on every run.
const png = await step('the screenshot', () =>
  page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', mask: [page.locator('.request-id')], maskColor: '#d0d7de' }),
);
await writeFile(out, png);
console.log(JSON.stringify({ out, bytes: png.length, seen }));
// The page first: its polls would keep the gateway's close waiting. A close that hangs does not keep the picture.
await step('closing', async () => {
  await page.close();
  await gateway.close();
  await browser.close();
}).catch((error: Error) => console.error(error.message));
process.exit(0);
