import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: a `builtins` override (e.g. a timeout for Write)
 * rebuilt the tool field by field and dropped its canonical path form, so
 * with the override in place a rule on `\.env$` no longer caught `.env/` or
 * `sub/../.env/` (nor did the Read lock meet the absolute spelling of a
 * file: see policy-links.test.ts). An override must keep every behaviour of
 * the tool it wraps.
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
