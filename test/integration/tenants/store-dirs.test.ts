import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isolated, scratch, startGateway, START_MS, TEST_MS, useGatewayScratch, withTimeout, writeConfig } from '../server-harness.js';

/**
 * docs/auth.md, "Tenant workspaces": a tenant's root may not hold the
 * gateway's own directories. With `spill.url` or `audit.url` a folder inside
 * tenant "data"'s root (`<workspace>/data/…`, as `workspace: .` with the
 * default `./data/spill` gives), that tenant's Glob listed every tenant's
 * spilled outputs and audit records, its Read read them and its Write could
 * change them. Such a configuration now stops start-up naming the tenant.
 */

useGatewayScratch();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = { acme: 'tg_acme-store-dirs', data: 'tg_data-store-dirs' };

async function post(address: string, key: string, calls: unknown[]) {
  const res = await fetch(`${address}/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: 's', tool_calls: calls }),
  });
  return JSON.stringify(await res.json());
}

describe("no tenant's root holds the spill or audit directory", { timeout: TEST_MS }, () => {
  it('a spill or audit directory inside tenant "data"\'s root stops start-up, so "data" never lists acme\'s spilled output', async () => {
    const workspace = join(scratch, 'ws');
    const config = await writeConfig(`
limits: {call_budget_bytes: 1024}
audit: {url: "${pathToFileURL(join(workspace, 'data', 'audit')).href}"}
keys:
  - {id: acme, sha256: ${sha256(KEY.acme)}, tenant: acme, scopes: [execute]}
  - {id: data, sha256: ${sha256(KEY.data)}, tenant: data, scopes: [execute]}
`);
    const gateway = startGateway(
      isolated({ TOOLGATE_CONFIG: config, TOOLGATE_SPILL_URL: pathToFileURL(join(workspace, 'data', 'spill')).href }),
    );
    const outcome = await withTimeout(
      Promise.race([gateway.ready.then((ready) => ({ ready })), gateway.exited.then((exit) => ({ exit }))]),
      START_MS,
      'start-up',
    );
    if ('ready' in outcome) {
      // What the configuration allowed: acme's cut output, then tenant "data" lists and reads it.
      const secret = 'acme-quarterly-'.repeat(200);
      await post(outcome.ready.address, KEY.acme, [
        { id: 'w', name: 'Write', arguments: { path: 'secret.txt', content: secret } },
        { id: 'r', name: 'Read', arguments: { path: 'secret.txt' } },
      ]);
      const seen = await post(outcome.ready.address, KEY.data, [
        { id: 'g', name: 'Glob', arguments: { pattern: '**' } },
        { id: 'grep', name: 'Grep', arguments: { pattern: 'acme-quarterly' } },
      ]);
      expect(seen, 'tenant "data" sees the spill and audit directories').not.toMatch(/spill\/|audit\/|acme-quarterly/);
    }
    expect(outcome).toMatchObject({ exit: { code: 2 } });
    const stderr = gateway.stderr();
    expect(stderr).toMatch(/spill\.url file:\/\/.*\/ws\/data\/spill is inside the workspace root of tenant "data"/);
    expect(stderr).toMatch(/audit\.url file:\/\/.*\/ws\/data\/audit is inside the workspace root of tenant "data"/);
  });
});
