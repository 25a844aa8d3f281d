import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: policy rules match arguments by regular expression
 * (docs/policy.md, whose own examples are used here), but the
 * built-in tools accept many spellings of one workspace path. The rules saw
 * the spelling; the tools wrote the file: `.env/` and `.env/.` wrote `.env`
 * past the deny rule, and `./infra/…`, `x/../infra/…` and the absolute path
 * edited `infra/…` past the ask rule.
 */
const RULES = [
  { tool: 'Write', when: { path: '\\.env$' }, decision: 'deny' },
  { tool: 'Edit', when: { path: '^infra/' }, decision: 'ask' },
  { tool: 'Write', when: { path: '^infra/' }, decision: 'ask' },
  { tool: 'Read', when: { path: '^secrets/' }, decision: 'deny' },
];

describe('a policy rule on a path holds for every spelling of that path', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { policy: { rules: RULES } } });
    await mkdir(join(t.workspace, 'infra'));
    await writeFile(join(t.workspace, 'infra', 'prod.yaml'), 'replicas: 3\n');
    await mkdir(join(t.workspace, 'secrets'));
    await writeFile(join(t.workspace, 'secrets', 'key.pem'), 'PRIVATE\n');
  });
  afterAll(async () => t.close());

  const one = async (name: string, args: Record<string, unknown>) => (await execute(t.app, [{ name, arguments: args }])).body.results[0];

  it.each(['.env', '.env/', '.env/.', './.env', 'x/../.env', './/.env', 'sub/../.env/'])('Write %j is denied', async (path) => {
    const r = await one('Write', { path, content: 'TOKEN=stolen\n' });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(existsSync(join(t.workspace, '.env'))).toBe(false);
  });

  it('Write to the absolute spelling of .env is denied', async () => {
    const r = await one('Write', { path: join(t.workspace, '.env/'), content: 'TOKEN=stolen\n' });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(existsSync(join(t.workspace, '.env'))).toBe(false);
  });

  it.each(['./infra/prod.yaml', 'x/../infra/prod.yaml', 'infra//prod.yaml', 'infra/./prod.yaml', '././infra/prod.yaml'])(
    'Edit %j needs approval',
    async (path) => {
      const r = await one('Edit', { path, old_string: 'replicas: 3', new_string: 'replicas: 0' });
      expect(r.error?.code).toBe('APPROVAL_REQUIRED');
      expect(await readFile(join(t.workspace, 'infra', 'prod.yaml'), 'utf8')).toBe('replicas: 3\n');
    },
  );

  it('Edit of the absolute spelling needs approval', async () => {
    const r = await one('Edit', { path: join(t.workspace, 'infra', 'prod.yaml'), old_string: 'replicas: 3', new_string: 'replicas: 0' });
    expect(r.error?.code).toBe('APPROVAL_REQUIRED');
  });

  it.each(['./secrets/key.pem', 'a/../secrets/key.pem', 'secrets//key.pem'])('Read %j is denied', async (path) => {
    expect((await one('Read', { path })).error?.code).toBe('PERMISSION_DENIED');
  });

  it('paths the rules do not name still run, and the result echoes the path as the caller spelled it', async () => {
    const r = await one('Write', { path: './notes/../notes/todo.md', content: 'x\n' });
    expect(r.status).toBe('success');
    expect(r.text).toContain('./notes/../notes/todo.md');
    expect((await one('Read', { path: 'infra/prod.yaml' })).status).toBe('success');
  });
});
