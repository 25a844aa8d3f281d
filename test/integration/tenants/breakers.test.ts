import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { faultyTool } from '../../helpers/tools.js';
import { as, fleet, KEY, one } from './fleet.js';

/**
 * docs/auth.md, "Tenant isolation": a tenant's calls cannot open a breaker for
 * another tenant's calls of the same tool unless the operator shares it
 * (`breaker.shared: true`), and a caller's own mistakes (bad paths, denied
 * permissions, invalid arguments, CONFLICT, missing files) never count at
 * all. Two replicas on one real Redis, as a fleet runs.
 */

/** The tool's breaker as `adminKey` sees it in GET /circuits. */
async function circuit(app: FastifyInstance, adminKey: string, tool: string) {
  const circuits = (await app.inject({ method: 'GET', url: '/circuits', headers: as(adminKey) })).json().circuits;
  return circuits.find((c: { tool: string }) => c.tool === tool);
}

describe("a tenant's calls open no breaker for another tenant (two replicas, one Redis)", () => {
  it("by default each tenant has its own: acme's failures on one replica open acme's, globex runs on the other", async () => {
    const f = await fleet([faultyTool('zeta')]);
    for (let i = 0; i < 3; i++) await one(f.a, KEY.acme, 'zeta', { mode: 'fail' });
    expect((await one(f.b, KEY.acme, 'zeta', { mode: 'ok' })).error.code).toBe('CIRCUIT_OPEN');
    expect((await one(f.b, KEY.globex, 'zeta', { mode: 'ok' })).status).toBe('success');
    expect(await circuit(f.b, KEY.acmeAdmin, 'zeta')).toMatchObject({ state: 'open', failures: 3 });
    expect(await circuit(f.a, KEY.globexAdmin, 'zeta')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('breaker.shared: true makes one breaker for every tenant, for a tool whose upstream is one for everyone', async () => {
    const shared = Object.assign(faultyTool('zeta'), { breaker: { shared: true } });
    const f = await fleet([shared]);
    for (let i = 0; i < 3; i++) await one(f.a, KEY.acme, 'zeta', { mode: 'fail' });
    expect((await one(f.b, KEY.globex, 'zeta', { mode: 'ok' })).error.code).toBe('CIRCUIT_OPEN');
    expect(await circuit(f.a, KEY.globexAdmin, 'zeta')).toMatchObject({ state: 'open', failures: 3 });
  });

  it("a caller's mistakes never count: dozens of bad calls of the file tools leave every breaker closed, for both tenants", async () => {
    const f = await fleet([], {
      builtins: { Write: { breaker: { shared: true } }, Read: { breaker: { shared: true } }, Edit: { breaker: { shared: true } } },
      policy: { rules: [{ tool: '*', when: { path: '^private/' }, decision: 'deny' }] },
    });
    await mkdir(join(f.workspace, 'acme'), { recursive: true });
    await writeFile(join(f.workspace, 'acme', 'a.txt'), 'one\n');
    const mistakes: Array<[string, Record<string, unknown>, string]> = [
      ['Read', { path: 'missing.txt' }, 'NOT_FOUND'],
      ['Read', { path: '../globex/x.txt' }, 'PERMISSION_DENIED'],
      ['Read', { path: '/etc/passwd' }, 'PERMISSION_DENIED'],
      ['Write', { path: 'private/x.txt', content: 'x' }, 'PERMISSION_DENIED'],
      ['Write', { path: 'a.txt', content: 'x', expected_mtime_ms: 1, expected_size_bytes: 1 }, 'CONFLICT'],
      ['Write', { path: 'a.txt/below.txt', content: 'x' }, 'INVALID_ARGS'],
      ['Edit', { path: 'a.txt', old_string: 'absent', new_string: 'x' }, 'INVALID_ARGS'],
      ['Edit', { path: 'gone.txt', old_string: 'a', new_string: 'b' }, 'NOT_FOUND'],
      ['Read', { path: 'a.txt', offset: 'first' }, 'INVALID_ARGS'],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [name, args, code] of mistakes) {
        const result = await one(round % 2 ? f.b : f.a, KEY.acme, name, args);
        expect(result.error?.code, `${name} ${JSON.stringify(args)}`).toBe(code);
      }
    }
    for (const tool of ['Read', 'Write', 'Edit'])
      expect(await circuit(f.b, KEY.globexAdmin, tool), tool).toMatchObject({ state: 'closed', failures: 0 });
    expect((await one(f.b, KEY.globex, 'Write', { path: 'b.txt', content: 'globex\n' })).status).toBe('success');
    expect((await one(f.a, KEY.acme, 'Read', { path: 'a.txt' })).status).toBe('success');
  });
});
