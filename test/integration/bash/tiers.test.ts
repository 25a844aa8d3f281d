import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { callApproving, loopbackCounter, makeWorkspace, removeAll } from './helpers.js';

/**
 * The two tiers (docs/bash.md) through POST /execute: what a hostile review
 * found, and each family it stands for, in both — `sandbox`
 * (`sandbox: required`) and `none` (`sandbox: none`). A command that would
 * run a program, write a file or open a socket must not run without an
 * approval in either; each leaves a marker file when it runs.
 */

const token = `sentinel-${randomBytes(8).toString('hex')}`;
let workspace: string;
let outside: string;
const apps: Record<'sandbox' | 'none', TestApp | undefined> = { sandbox: undefined, none: undefined };
let calls = 0;

beforeAll(async () => {
  workspace = await makeWorkspace();
  outside = await mkdtemp(join(tmpdir(), 'toolgate-tiers-outside-'));
  await writeFile(join(outside, 'secret.txt'), `${token}\n`, { mode: 0o644 });
  await writeFile(join(workspace, 'f.txt'), 'hello\n', { mode: 0o644 });
  apps.sandbox = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'required' } } } });
  apps.none = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } } } });
});
afterAll(async () => {
  await apps.sandbox?.close();
  await apps.none?.close();
  await removeAll(workspace, outside);
});

/** One Bash call, never approved: its result. */
async function bash(tier: 'sandbox' | 'none', command: string) {
  const { body } = await execute(apps[tier]!.app, [{ id: `c${++calls}`, name: 'Bash', arguments: { command } }]);
  return body.results[0];
}

const TIERS = ['sandbox', 'none'] as const;

describe.each(TIERS)('tier %s: GET /tools/Bash and the start-up log name the tier', (tier) => {
  it('x-toolgate.tier', async () => {
    const tool = (await apps[tier]!.app.inject({ method: 'GET', url: '/tools/Bash' })).json();
    expect(tool['x-toolgate'].tier).toBe(tier);
  });
});

describe.each(TIERS)('tier %s: quoted strings in arithmetic, subscripts and offsets are evaluated, so they ask', (tier) => {
  const spellings = [
    "echo $(( '$(touch MARK)' ))",
    "a=(1); echo ${a['$(touch MARK)']}",
    `echo "\${HOME:'$(touch MARK)'}"`,
    "echo ${HOME:0:'$(touch MARK)'}",
    "echo $[ '$(touch MARK)' ]",
    "(( '$(touch MARK)' ))",
    "a=(1); echo ${#a['$(touch MARK)']}",
    "a=(1); echo ${a[@]:'$(touch MARK)'}",
    "echo ${x:-$(( '$(touch MARK)' ))}",
    `a=(1); echo "\${a["$(touch MARK)"]}"`,
    "for ((i='$(touch MARK)'; i<1; i++)); do :; done",
    "cat <<< $(( '$(touch MARK)' ))",
    "[[ '$(touch MARK)' -eq 1 ]]",
    `echo "\${x[$'\\x24(touch MARK)']}"`,
  ];
  it.each(spellings.map((s, i) => [s, i]))('%s', async (spelling, i) => {
    const mark = `arith-${tier}-${i}`;
    const result = await bash(tier, (spelling as string).replace('MARK', mark));
    expect(result.error?.code).toBe('APPROVAL_REQUIRED');
    expect(existsSync(join(workspace, mark))).toBe(false);
  });
});

describe.each(TIERS)('tier %s: awk and gawk run nothing and open no socket without an approval', (tier) => {
  const listener = loopbackCounter('from-the-socket\n');

  it.each([
    `awk 'BEGIN{x=1system("touch MARK")}'`,
    `awk 'BEGIN{x=1e3system("touch MARK")}'`,
    `awk 'BEGIN{x=0x1system("touch MARK")}'`,
    `awk 'BEGIN{x="a"system("touch MARK")}'`,
    `awk 'BEGIN{print 1 system("touch MARK")}'`,
  ])('%s is DENY', async (command) => {
    const mark = `awk-${tier}-${randomBytes(3).toString('hex')}`;
    const result = await bash(tier, command.replace('MARK', mark));
    expect(result.error?.code).toBe('PERMISSION_DENIED');
    expect(existsSync(join(workspace, mark))).toBe(false);
  });

  it('getline < "/inet/tcp/…" is DENY, a file name built at run time ASK; no connection is made', async () => {
    const inet = `/inet/tcp/0/127.0.0.1/${listener.port}`;
    expect((await bash(tier, `awk 'BEGIN{getline x < "${inet}"; print x}'`)).error?.code).toBe('PERMISSION_DENIED');
    expect((await bash(tier, `gawk 'BEGIN{f="${inet}"; getline x < f; print x}'`)).error?.code).toBe('APPROVAL_REQUIRED');
    const concat = `awk 'BEGIN{getline x < ("/in" "et/tcp/0/127.0.0.1/${listener.port}"); print x}'`;
    expect((await bash(tier, concat)).error?.code).toBe('APPROVAL_REQUIRED');
    expect(listener.connections).toBe(0);
  });
});

describe.each(TIERS)('tier %s: no program sets a variable for another, and HOME is not the workspace', (tier) => {
  it('xargs --process-slot-var (GCONV_PATH for the command it runs) asks', async () => {
    await mkdir(join(workspace, '0'), { recursive: true });
    await writeFile(join(workspace, '0', 'gconv-modules'), 'module x// INTERNAL ./evil 1\n');
    const result = await bash(tier, 'echo x | xargs --process-slot-var=GCONV_PATH grep x');
    expect(result.error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('HOME, GNUPGHOME and the XDG folders are one empty folder outside the workspace', async () => {
    const command = 'echo "$HOME|$GNUPGHOME|$XDG_CONFIG_HOME|$XDG_DATA_HOME|$XDG_CACHE_HOME"; ls -A "$HOME"';
    const result = (await callApproving(apps[tier]!.app, 'Bash', { command })).body.results[0];
    expect(result.status).toBe('success');
    const [line, ...listing] = (result.text as string).split('\n');
    const homes = line!.split('|');
    expect(new Set(homes).size).toBe(1);
    expect(homes[0]).not.toContain(workspace);
    expect(listing.filter(Boolean)).toEqual([]);
  });

  it('gpg reads no gpg.conf the workspace holds (it did from $HOME/.gnupg when HOME was the workspace)', async () => {
    await mkdir(join(workspace, '.gnupg'), { recursive: true, mode: 0o755 });
    await writeFile(join(workspace, '.gnupg', 'gpg.conf'), 'no-such-option-planted\n');
    const { body, asked } = await callApproving(apps[tier]!.app, 'Bash', { command: 'gpg --list-config 2>&1; true' });
    expect(asked).toBe(true);
    expect(body.results[0].text).not.toContain('no-such-option-planted');
    expect(body.results[0].text).not.toContain('gpg.conf');
  });

  it('git --bare and -c with a signature check are not ALLOW without a sandbox; --bare is not in either tier', async () => {
    expect((await bash(tier, 'git --bare log -p')).error?.code).toBe('APPROVAL_REQUIRED');
    if (tier === 'none') {
      expect((await bash(tier, "git log -1 '--format=%G? %GS'")).error?.code).toBe('APPROVAL_REQUIRED');
      expect((await bash(tier, 'git -c log.showSignature=true log')).error?.code).toBe('APPROVAL_REQUIRED');
    }
  });

  it('a planted folder with HEAD, objects, refs and a config naming a textconv is never used as a repository', async () => {
    const planted = join(workspace, 'planted');
    await mkdir(join(planted, 'objects'), { recursive: true });
    await mkdir(join(planted, 'refs', 'heads'), { recursive: true });
    await writeFile(join(planted, 'HEAD'), 'ref: refs/heads/master\n');
    await writeFile(join(planted, 'config'), `[core]\n\tbare = true\n[diff "x"]\n\ttextconv = touch ../textconv-${tier}\n`);
    const result = await bash(tier, 'cd planted && git log -p');
    if (tier === 'none') expect(result.error?.code).toBe('APPROVAL_REQUIRED');
    else expect(result.text).toMatch(/bare repository|not a git repository/);
    expect(existsSync(join(workspace, `textconv-${tier}`))).toBe(false);
  });
});

describe.each(TIERS)("tier %s: cd out of the workspace and into a process's folder", (tier) => {
  it('cd ../../../..; cd proc; cd $PPID; cat environ is refused', async () => {
    const result = await bash(tier, 'cd ../../../..; cd proc; cd $PPID; cat environ');
    expect(result.error?.code).toBe('PERMISSION_DENIED');
  });

  it('cd to a folder named at run time asks', async () => {
    expect((await bash(tier, 'cd "$HOME"; ls')).error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('a read outside the workspace shows nothing of the host: asked without a sandbox, hidden inside it', async () => {
    for (const command of [`cat ${join(outside, 'secret.txt')}`, `cd ..; cat ${outside.split('/').pop()}/secret.txt`]) {
      const result = await bash(tier, command);
      if (tier === 'none') expect(result.error?.code).toBe('APPROVAL_REQUIRED');
      expect(JSON.stringify(result)).not.toContain(token);
    }
  });
});

describe('tier none: git finds no repository around the workspace', () => {
  it("a repository in the folder above is not the workspace's: git status (approved) says there is none", async () => {
    const parent = await mkdtemp(join(tmpdir(), 'toolgate-tiers-parent-'));
    const inner = join(parent, 'ws');
    await mkdir(inner);
    const { spawnSync } = await import('node:child_process');
    spawnSync('git', ['init', '-q', parent]);
    const t = await buildTestApp({ workspace: inner, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } } } });
    try {
      const { body, asked } = await callApproving(t.app, 'Bash', { command: 'git status 2>&1' });
      expect(asked).toBe(true);
      expect(body.results[0].text).toContain('not a git repository');
    } finally {
      await t.close();
      await removeAll(parent);
    }
  });

  it('a link to a file outside is not read without an approval', async () => {
    await symlink(join(outside, 'secret.txt'), join(workspace, 'link-out'));
    const result = await bash('none', 'cat link-out');
    expect(result.error?.code).toBe('APPROVAL_REQUIRED');
    expect((await bash('none', 'cat f.txt')).text).toBe('hello\n');
  });
});
