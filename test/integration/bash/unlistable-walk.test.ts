import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { NOBODY, removeAll } from './helpers.js';

/**
 * A folder the gateway cannot list could hold anything a rule names: the
 * command is refused rather than run with the rules below it unmounted.
 * The gateway runs as an unprivileged user, the usual deployment (run as
 * root, this test file's process gives itself up to nobody first: root
 * lists any folder). Through POST /execute, with real bubblewrap.
 */

const SECRET = 'AKIA-unlistable-canary-81c2';
let workspace: string;
let t: TestApp;

beforeAll(async () => {
  if (process.getuid?.() === 0) {
    process.setgid?.(NOBODY);
    process.setuid?.(NOBODY);
  }
  workspace = await mkdtemp(join(tmpdir(), 'toolgate-bash-unlistable-'));
  await mkdir(join(workspace, 'secrets'));
  await writeFile(join(workspace, 'secrets', 'api.key'), `${SECRET}\n`);
  await writeFile(join(workspace, '.env'), `${SECRET}-env\n`);
  await mkdir(join(workspace, 'sub', '.git'), { recursive: true });
  await writeFile(join(workspace, 'sub', '.env'), `${SECRET}-sub\n`);
  t = await buildTestApp({
    workspace,
    config: {
      builtins: { Bash: { enabled: true, sandbox: 'required' } },
      policy: {
        rules: [
          { tool: '*', when: { path: '^secrets(/|$)' }, decision: 'deny' },
          { tool: '*', when: { path: '(^|/)\\.env$' }, decision: 'deny' },
          { tool: 'Bash', when: { command: '.*' }, decision: 'allow' },
        ],
      },
    },
  });
});
afterAll(async () => {
  await t?.close();
  execFileSync('chmod', ['-R', 'u+rwx', workspace]);
  await removeAll(workspace);
});

let calls = 0;
const bash = async (command: string) =>
  (await execute(t.app, { session_id: 's1', tool_calls: [{ id: `c${++calls}`, name: 'Bash', arguments: { command } }] })).body.results[0];

describe('a folder the gateway cannot list', () => {
  it.each([
    ['.', 'chmod 700 .; cat .env secrets/api.key; echo x > .bashrc'],
    ['sub', 'chmod 700 sub; cat sub/.env; echo x > sub/.git/config'],
  ])('%s made unlistable by one command: the next is refused, nothing read or made', async (dir, next) => {
    expect((await bash(`chmod 300 ${dir}`)).status).toBe('success');
    try {
      const refused = await bash(next);
      expect(refused.error).toMatchObject({ code: 'EXECUTION_FAILED', message: expect.stringContaining(`could not read ${dir} `) });
      expect(JSON.stringify(refused)).not.toContain(SECRET);
    } finally {
      execFileSync('chmod', ['700', join(workspace, dir)]);
    }
    await expect(readFile(join(workspace, '.bashrc'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(workspace, 'sub', '.git', 'config'))).rejects.toThrow(/ENOENT/);
    const after = await bash('cat secrets/api.key sub/.env; echo ok');
    expect(after.text).toContain('ok\n');
    expect(after.text).not.toContain(SECRET);
  });
});
