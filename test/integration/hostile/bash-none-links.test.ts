import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/redis-global-setup.js';
import { makeWorkspace, NOBODY, removeAll, runningAsRoot } from '../bash/helpers.js';
import { toolgate, type Proc } from '../ops/stack.js';

/**
 * The none tier, through POST /execute of a real gateway with read rules on
 * `secrets/` and `.env`: a path the rules withhold is not read through a link
 * inside the workspace that leads to it (the rules were checked on the
 * spelling only), nor through a folder operand of diff (`diff -N app empty`
 * printed app/.env, and diff follows the links in a folder it compares, out
 * of the workspace too); and `tail +1f f.txt` followed the file until the
 * timeout; and `for i in 1 2; do cd d; done; cat f.txt` read through
 * d/d, a link out, that the check (following each cd once) never saw. Each asks now; the allowed neighbours still run.
 */
const ASK = [
  'cat lnk',
  'cat envlink',
  'head < lnk',
  'cd lnkdir && cat k',
  'cat lnkdir/k',
  'cd secrets && ls',
  'diff -N app empty',
  'diff -N . empty',
  'diff -N out empty',
  'diff app f.txt',
  // The on-disk check followed each cd once; a loop repeats it, down d/d, a link out (or to secrets/).
  'for i in 1 2; do cd d; done; cat f.txt',
  'for i in 1 2; do cd e; done; cat k',
  // A function under a core command's name runs its cd on every call.
  'true() { cd d; }; true; true; cat f.txt',
  // GNU tail reads a lone +N… operand as its obsolete options: this one follows f.txt until the timeout.
  'tail +1f f.txt',
];
const ALLOW: Array<[string, string]> = [
  ['cat f.txt', 'hello\n'],
  ['diff f.txt f.txt', ''],
  ['cd app && cat x', 'x\n'],
  ['tail -n +1 f.txt', 'hello\n'],
  ['for i in 1 2; do cat f.txt; done', 'hello\nhello\n'],
];

describe('sandbox: none: links and folder operands do not read what the rules withhold', () => {
  let workspace: string;
  let outside: string;
  let scratch: string;
  let gateway: Proc;
  let results: Array<{ status: string; text: string; error?: { code: string } }>;

  beforeAll(async () => {
    workspace = await makeWorkspace();
    outside = await mkdtemp(join(tmpdir(), 'toolgate-hostile-links-out-'));
    // Readable to the user commands run as (nobody, when the tests run as root), so a command that reaches it could print it.
    await chmod(outside, 0o755);
    await writeFile(join(outside, 'f.txt'), 'OUTSIDE-7391\n', { mode: 0o644 });
    await mkdir(join(workspace, 'secrets'));
    await writeFile(join(workspace, 'secrets', 'k'), 'SECRET-7391\n');
    await mkdir(join(workspace, 'app'));
    await writeFile(join(workspace, 'app', '.env'), 'ENV-7391\n');
    await writeFile(join(workspace, 'app', 'x'), 'x\n');
    await writeFile(join(workspace, 'f.txt'), 'hello\n');
    await mkdir(join(workspace, 'empty'));
    await mkdir(join(workspace, 'out'));
    await symlink(join(outside, 'f.txt'), join(workspace, 'out', 'f.txt'));
    await mkdir(join(workspace, 'd'));
    await symlink(outside, join(workspace, 'd', 'd'));
    await mkdir(join(workspace, 'e'));
    await symlink('../secrets', join(workspace, 'e', 'e'));
    await symlink('secrets/k', join(workspace, 'lnk'));
    await symlink('secrets', join(workspace, 'lnkdir'));
    await symlink('app/.env', join(workspace, 'envlink'));
    if (runningAsRoot) spawnSync('chown', ['-hR', `${NOBODY}:${NOBODY}`, workspace]);
    scratch = await mkdtemp(join(tmpdir(), 'toolgate-hostile-links-'));
    const config = join(scratch, 'config.json');
    const rules = [
      { tool: 'Read', when: { path: '^secrets(/|$)' }, decision: 'deny' },
      { tool: 'Read', when: { path: '(^|/)\\.env$' }, decision: 'deny' },
    ];
    await writeFile(
      config,
      JSON.stringify({ allow_unauthenticated: true, builtins: { Bash: { enabled: true, sandbox: 'none' } }, policy: { rules } }),
    );
    const port = await freePort();
    gateway = toolgate('gateway', 'serve', scratch, {
      PORT: String(port),
      HOST: '127.0.0.1',
      TOOLGATE_CONFIG: config,
      TOOLGATE_WORKSPACE: workspace,
      TOOLGATE_SPILL_URL: `file://${join(scratch, 'spill')}`,
    });
    await gateway.listening(port);
    const commands = [...ASK, ...ALLOW.map(([c]) => c)];
    const response = await fetch(`http://127.0.0.1:${port}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(commands.map((command, i) => ({ id: `l${i}`, name: 'Bash', arguments: { command } }))),
    });
    results = ((await response.json()) as { results: typeof results }).results;
  }, 120_000);

  afterAll(async () => {
    await gateway?.kill();
    await removeAll(workspace, outside, scratch);
  });

  it.each(ASK.map((command, i) => [command, i] as const))('%s asks first', (_command, i) => {
    expect(results[i]!.error?.code).toBe('APPROVAL_REQUIRED');
  });

  it.each(ALLOW.map(([command, text], i) => [command, text, ASK.length + i] as const))('%s still runs', (_command, text, i) => {
    expect(results[i]).toMatchObject({ status: 'success', text });
  });

  it('no answer holds a withheld or outside file', () => {
    expect(JSON.stringify(results)).not.toMatch(/SECRET-7391|ENV-7391|OUTSIDE-7391/);
  });
});
