import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: a `builtins` override (e.g. a timeout for Write)
 * rebuilt the tool field by field and dropped its canonical path form, so
 * with the override in place a rule on `\.env$` no longer caught `.env/` or
 * `sub/../.env/`, and the Read lock no longer met `./a.txt` and `a.txt`.
 * An override must keep every behaviour of the tool it wraps.
 */
const TOOLS = ['Read', 'Write', 'Edit'] as const;
const SPELLINGS = ['.env', './.env', '.env/', '.env/.', 'sub/../.env', './sub/../.env/'];
const OVERRIDE = { Read: { timeout_ms: 5000 }, Write: { timeout_ms: 5000 }, Edit: { timeout_ms: 5000 } };
const EXPECTED = { deny: 'PERMISSION_DENIED', ask: 'APPROVAL_REQUIRED' } as const;
const ORIGINAL = 'TOKEN=original\n';

function argsFor(tool: (typeof TOOLS)[number], path: string): Record<string, unknown> {
  if (tool === 'Write') return { path, content: 'TOKEN=stolen\n' };
  if (tool === 'Edit') return { path, old_string: 'original', new_string: 'stolen' };
  return { path };
}

describe.each([
  ['without an override', {}],
  ['with an override', OVERRIDE],
])('a path rule decides every spelling of the path the same, %s', (_label, builtins) => {
  describe.each(['deny', 'ask'] as const)('%s rule', (decision) => {
    let t: TestApp;
    beforeAll(async () => {
      const rules = TOOLS.map((tool) => ({ tool, when: { path: '\\.env$' }, decision }));
      t = await buildTestApp({ config: { builtins, policy: { rules } } });
      await writeFile(join(t.workspace, '.env'), ORIGINAL);
    });
    afterAll(async () => t.close());

    it.each(TOOLS.flatMap((tool) => SPELLINGS.map((path) => [tool, path] as const)))('%s %j', async (tool, path) => {
      const r = (await execute(t.app, [{ name: tool, arguments: argsFor(tool, path) }])).body.results[0];
      expect(r.error?.code).toBe(EXPECTED[decision]);
      expect(await readFile(join(t.workspace, '.env'), 'utf8')).toBe(ORIGINAL);
    });
  });
});

describe('the Read lock meets every spelling of the path with an override on Read and Edit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { builtins: OVERRIDE } });
  });
  afterAll(async () => t.close());

  it('Read ./a.txt, a change by someone else, then Edit of its absolute path is a CONFLICT', async () => {
    const session = { 'x-session-id': 'agent-1' };
    const file = join(t.workspace, 'a.txt');
    await writeFile(file, 'version 1\n');
    expect((await execute(t.app, [{ name: 'Read', arguments: { path: './a.txt' } }], session)).body.results[0].status).toBe('success');
    await writeFile(file, 'version 2\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    const edit = await execute(t.app, [{ name: 'Edit', arguments: { path: file, old_string: 'version 2', new_string: 'version 3' } }], session);
    expect(edit.body.results[0].error?.code).toBe('CONFLICT');
    expect(await readFile(file, 'utf8')).toBe('version 2\n');
  });
});
