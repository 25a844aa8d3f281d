import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** An admin key, an agent's key (execute only) and a key of another tenant's admin. */
export const KEYS = {
  admin: 'tg_console_admin_key_0123456789abcdef',
  agent: 'tg_console_agent_key_0123456789abcdef',
  otherAdmin: 'tg_console_globex_admin_0123456789ab',
};

export const KEY_ENTRIES = [
  { id: 'ops-alice', sha256: sha256(KEYS.admin), tenant: 'acme', scopes: ['admin'] },
  { id: 'acme-agent', sha256: sha256(KEYS.agent), tenant: 'acme', scopes: ['execute'] },
  { id: 'globex-ops', sha256: sha256(KEYS.otherAdmin), tenant: 'globex', scopes: ['admin'] },
];

/** The config the console tests serve: keys, an ASK on every Edit and Write. */
export const CONSOLE_CONFIG = {
  keys: KEY_ENTRIES,
  policy: { rules: [{ tool: 'Edit', decision: 'ask' }] },
  builtins: { Write: { requires_approval: true } },
};

/** The bound the console promises: a request appears, and one decided elsewhere leaves, within 2 s. */
export const LIVE_MS = 2_000;

/** How long one API call of a test may take on a busy machine before it fails with its own name, not the test's timeout. */
const CALL_MS = 15_000;

/** What an agent gets for one call, sent to `base` with the agent's key. */
export async function agentCall(base: string, name: string, args: Record<string, unknown>, session = 'build-42') {
  const response = await fetch(`${base}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS.agent}` },
    body: JSON.stringify({ session_id: session, tool_calls: [{ id: `c${Math.random().toString(36).slice(2)}`, name, arguments: args }] }),
    signal: AbortSignal.timeout(CALL_MS),
  });
  const body = (await response.json()) as {
    results: Array<{ status: string; text: string; error?: { code: string; message: string; details?: { approval_id?: string } } }>;
  };
  return body.results[0]!;
}

/** An admin's decision through the API, as another tab, replica or script would take it. */
export async function decideByApi(base: string, id: string, decision: 'approve' | 'deny', reason?: string) {
  return fetch(`${base}/approvals/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS.admin}` },
    body: JSON.stringify({ decision, ...(reason && { reason }) }),
    signal: AbortSignal.timeout(CALL_MS),
  });
}

export async function signIn(page: Page, base: string, key = KEYS.admin): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The request whose accessible name holds `tool` (and `path`), as a person using a screen reader finds it. */
export const requestFor = (page: Page, tool: string, path?: string) =>
  page.getByRole('article', { name: new RegExp(`${tool}${path ? `.*${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` : ''}`) });

/** Milliseconds from now until `check` holds, polling every 50 ms; throws past `timeoutMs`. */
export async function msUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
