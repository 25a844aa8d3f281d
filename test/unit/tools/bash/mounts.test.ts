import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPathRules, type PolicyRuleSpec } from '../../../../src/policy/index.js';
import { sandboxMounts } from '../../../../src/tools/bash/mounts.js';

let ws: string;
beforeAll(async () => {
  ws = await mkdtemp(join(tmpdir(), 'toolgate-mounts-'));
  await mkdir(join(ws, 'secrets'));
  await writeFile(join(ws, 'secrets', 'k'), 'k');
  await mkdir(join(ws, 'infra'));
  await writeFile(join(ws, 'infra', 'main.tf'), '');
  await writeFile(join(ws, '.env'), 'X=1');
  await writeFile(join(ws, '.bashrc'), '');
  await mkdir(join(ws, 'sub', '.git'), { recursive: true });
  await writeFile(join(ws, 'sub', '.git', 'config'), '');
  await writeFile(join(ws, 'sub', '.gitmodules'), '');
  await symlink('secrets', join(ws, 'alias'));
});
afterAll(() => rm(ws, { recursive: true, force: true }));

const rules = (specs: PolicyRuleSpec[]) => createPathRules(specs);
/** The mounts as `flag dest` pairs, the source left out (the empty file's path is the process's own). */
const plan = (args: string[]) => {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (flag === '--ro-bind') {
      const [src, dest] = [args[i + 1]!, args[i + 2]!];
      out.push(`${src === dest ? 'read-only' : 'empty file'} ${dest.slice(ws.length + 1)}`);
      i += 2;
    } else if (flag === '--tmpfs') {
      out.push(`empty folder ${args[i + 1]!.slice(ws.length + 1)}`);
      i += 3;
    }
  }
  return out.sort();
};

describe('the mounts a policy becomes inside the sandbox', () => {
  it('masks what is denied or asked for reading, freezes what is for writing and the protected files, follows a named link', async () => {
    const specs: PolicyRuleSpec[] = [
      { tool: '*', when: { path: '^secrets/' }, decision: 'deny' },
      { tool: 'Read', when: { path: '(^|/)\\.env$' }, decision: 'ask' },
      { tool: 'Edit', when: { path: '^infra/' }, decision: 'deny' },
      { tool: 'Read', when: { path: '^alias$' }, decision: 'deny' },
    ];
    expect(plan(await sandboxMounts(ws, rules(specs)))).toEqual([
      'empty file .env',
      'empty folder secrets',
      'empty folder sub/.git/hooks',
      'read-only .bashrc',
      'read-only infra',
      'read-only sub/.git/config',
      'read-only sub/.gitmodules',
    ]);
  });

  it('with no rules, only the protected files', async () => {
    expect(plan(await sandboxMounts(ws, rules([])))).toEqual(['empty folder sub/.git/hooks', 'read-only .bashrc', 'read-only sub/.git/config', 'read-only sub/.gitmodules']);
  });

  it('a workspace past the walk limit refuses the command rather than leave a rule unmounted', async () => {
    await expect(sandboxMounts(ws, rules([]), 3)).rejects.toMatchObject({ code: 'EXECUTION_FAILED', message: expect.stringMatching(/more than 3 entries/) });
  });
});
