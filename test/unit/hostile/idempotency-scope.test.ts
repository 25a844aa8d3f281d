import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: Idempotency-Key records were kept per tenant, so a
 * second key of the tenant that sent the same body with the same
 * Idempotency-Key got the first key's stored response, whatever its own
 * rights: a key allowed only LS read a file through another key's Read.
 */
const FULL = 'full-key';
const NARROW = 'narrow-key';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('an Idempotency-Key replays only to the key that made the response', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      config: {
        keys: [
          { id: 'full', sha256: sha256(FULL), tenant: 'acme', scopes: ['execute'] },
          { id: 'narrow', sha256: sha256(NARROW), tenant: 'acme', scopes: ['execute'], tools: ['LS'] },
        ],
      },
    });
    // Both keys are tenant acme's: its calls work in acme's folder of the workspace.
    await mkdir(join(t.workspace, 'acme'), { recursive: true });
    await writeFile(join(t.workspace, 'acme', 'secret.txt'), 'the secret\n');
  });
  afterAll(async () => t.close());

  const post = (key: string) =>
    t.app.inject({
      method: 'POST',
      url: '/execute',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'retry-1', 'x-session-id': 'shared' },
      payload: [{ id: 'r1', name: 'Read', arguments: { path: 'secret.txt' } }],
    });

  it("a key limited to LS does not get another key's Read through the same Idempotency-Key", async () => {
    const first = await post(FULL);
    expect(first.json().results[0]).toMatchObject({ status: 'success', replayed: false });
    const second = await post(NARROW);
    expect(second.body).not.toContain('the secret');
    expect(second.json().results?.[0]?.error?.code).toBe('UNKNOWN_TOOL');
  });

  it('the same key still gets its response replayed', async () => {
    const again = await post(FULL);
    expect(again.json().results[0]).toMatchObject({ status: 'success', replayed: true });
  });
});
