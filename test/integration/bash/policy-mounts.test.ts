import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { callApproving, makeWorkspace, NOBODY, removeAll, runningAsRoot } from './helpers.js';

/**
 * The sandbox is the wall: whatever a command is and however it spells a
 * path, what a rule denies for reading is not there to read inside it, and
 * what a rule denies for writing, and the protected files, cannot be
 * changed. Every command here is made ALLOW by a rule on Bash, so nothing
 * but the sandbox stands between it and the files (the classifier would ask
 * for most of them). Through POST /execute, with real bubblewrap.
 */

const SECRET = 'AKIA-not-a-real-key-but-the-canary-7f3a';
const CANARY_ENV = 'TOOLGATE_TEST_GATEWAY_CANARY';

let workspace: string;
let t: TestApp;

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: workspace,
    env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });

const RULES = [
  { tool: '*', when: { path: '^secrets/' }, decision: 'deny' },
  { tool: '*', when: { path: '^app/config/keys/' }, decision: 'deny' },
  { tool: 'Read', when: { path: '^notes/private\\.md$' }, decision: 'ask' },
  { tool: 'Write', when: { path: '^infra/' }, decision: 'deny' },
  { tool: 'Write', when: { path: '^deploy/prod/' }, decision: 'deny' },
  { tool: 'Bash', when: { command: '.*' }, decision: 'allow' },
];

beforeAll(async () => {
  process.env[CANARY_ENV] = SECRET;
  workspace = await makeWorkspace();
  await mkdir(join(workspace, 'secrets', 'deep'), { recursive: true });
  await writeFile(join(workspace, 'secrets', 'key.txt'), `${SECRET}\n`);
  await writeFile(join(workspace, 'secrets', 'deep', 'more.txt'), `${SECRET}\n`);
  await mkdir(join(workspace, 'notes'));
  await writeFile(join(workspace, 'notes', 'private.md'), `${SECRET}\n`);
  await writeFile(join(workspace, 'notes', 'public.md'), 'public\n');
  await mkdir(join(workspace, 'infra'));
  await writeFile(join(workspace, 'infra', 'main.tf'), 'resource {}\n');
  await symlink('secrets', join(workspace, 'alias'));
  await mkdir(join(workspace, 'app', 'config', 'keys'), { recursive: true });
  await writeFile(join(workspace, 'app', 'config', 'keys', 'k.pem'), `${SECRET}\n`);
  await writeFile(join(workspace, '.bashrc'), '# start file\n');
  git('init', '-q');
  await writeFile(join(workspace, 'README.md'), 'hello\n');
  git('add', 'README.md');
  git('commit', '-qm', 'first');
  // The commands run as the workspace's owner: as root, nobody, who must own what a command could change.
  if (runningAsRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, workspace]);
  t = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'required' } }, policy: { rules: RULES } } });
});
afterAll(async () => {
  delete process.env[CANARY_ENV];
  await t?.close();
  await removeAll(workspace);
});

/**
 * Runs `command`, approved when the classifier still asks (the rule on Bash
 * makes most commands ALLOW); its text, stdout and stderr alike, whatever
 * the exit. A command the classifier denies whatever the rules say did not
 * run: its text is empty.
 */
async function bash(command: string): Promise<{ text: string; status: string }> {
  const { body } = await callApproving(t.app, 'Bash', { command });
  const result = body.results[0];
  if (result.error?.code === 'PERMISSION_DENIED') return { text: '', status: 'denied' };
  expect(result.error?.code ?? 'COMMAND_FAILED').toBe('COMMAND_FAILED');
  // The sandbox was made: a command that never started would read nothing for the wrong reason.
  expect(String(result.text ?? '')).not.toMatch(/^bwrap: /m);
  return { text: String(result.text ?? ''), status: result.status };
}

describe('paths a rule denies or asks for reading are masked inside the sandbox', () => {
  it.each([
    'cat secrets/key.txt',
    'cat secrets/deep/more.txt',
    'cat ./secrets/../secrets/key.txt',
    'cat alias/key.txt',
    'cat "$PWD"/secrets/key.txt',
    'cat /proc/self/cwd/secrets/key.txt',
    'grep -ra AKIA .',
    'find . -type f -exec cat {} +',
    'tar cf - . | strings',
    'cat notes/private.md',
    'git grep -e AKIA $(git hash-object -t tree /dev/null) -- . ; cat secrets/*',
    'cp -r secrets /tmp/s && cat /tmp/s/key.txt',
  ])('%s reads nothing of them', async (command) => {
    const { text } = await bash(command);
    expect(text).not.toContain(SECRET);
  });

  it('a folder shows empty, a file reads empty, and the rest of the workspace is there', async () => {
    expect((await bash('ls -A secrets | wc -l')).text.trim()).toBe('0');
    expect((await bash('wc -c < notes/private.md')).text.trim()).toBe('0');
    expect((await bash('cat notes/public.md')).text).toBe('public\n');
  });

  it('nothing of the gateway process is reachable: its environment, by any /proc path', async () => {
    const { text } = await bash('cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; cat /dev/fd/../../$PPID/environ 2>&1; env');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(CANARY_ENV);
  });
});

describe('a folder holding a mount cannot be moved away with what it hides', () => {
  it.each([
    'mv app app2',
    'mv app/config app/c2',
    'rm -rf app',
    'cp -a app app3 && rm -rf app && mv app3 app',
    'ln -s /tmp app/config/link && mv app/config/keys app/config/link/',
  ])('%s, then the next command finds the key under no other name', async (command) => {
    await bash(command);
    const { text } = await bash('grep -ra AKIA . ; cat app*/*/keys/* app*/*/*/* 2>/dev/null');
    expect(text).not.toContain(SECRET);
    expect(await readFile(join(workspace, 'app', 'config', 'keys', 'k.pem'), 'utf8')).toBe(`${SECRET}\n`);
  });
});

describe('paths a rule denies for writing, and the protected files, are read-only inside the sandbox', () => {
  it.each([
    ['echo x > infra/main.tf', 'infra/main.tf', 'resource {}\n'],
    ['echo x >> infra/main.tf', 'infra/main.tf', 'resource {}\n'],
    ['sed -i s/resource/gone/ infra/main.tf', 'infra/main.tf', 'resource {}\n'],
    ['mv infra/main.tf main.tf', 'infra/main.tf', 'resource {}\n'],
    ['rm -rf infra', 'infra/main.tf', 'resource {}\n'],
    ['echo "alias ls=rm" >> .bashrc', '.bashrc', '# start file\n'],
    ['rm -f secrets/key.txt; rm -rf secrets', 'secrets/key.txt', `${SECRET}\n`],
  ])('%s leaves %s as it was', async (command, path, content) => {
    await bash(command);
    expect(await readFile(join(workspace, path), 'utf8')).toBe(content);
  });

  it('a new file cannot be made in a folder a rule denies for writing', async () => {
    const { text } = await bash('touch infra/new.tf; echo status=$?');
    expect(text).toContain('status=1');
    await expect(readFile(join(workspace, 'infra', 'new.tf'))).rejects.toThrow(/ENOENT/);
  });

  it('.git/config and .git/hooks cannot be changed, so no program is planted for git to run', async () => {
    const before = await readFile(join(workspace, '.git', 'config'), 'utf8');
    await bash('printf "[core]\\n\\tfsmonitor = touch pwned\\n" >> .git/config');
    await bash('printf "#!/bin/sh\\ntouch pwned\\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit');
    expect(await readFile(join(workspace, '.git', 'config'), 'utf8')).toBe(before);
    await expect(readFile(join(workspace, '.git', 'hooks', 'pre-commit'))).rejects.toThrow(/ENOENT/);
  });

  it('a folder a rule for writing keeps cannot be made and written before it exists, nor moved once it does', async () => {
    for (const command of [
      'mkdir -p deploy/prod && echo x > deploy/prod/app.yml',
      'mkdir -p deploy/prod && echo x > deploy/prod/app.yml',
      'mv deploy d2; mkdir -p deploy/prod && echo x > deploy/prod/app.yml',
    ]) {
      await bash(command);
      await expect(readFile(join(workspace, 'deploy', 'prod', 'app.yml'))).rejects.toThrow(/ENOENT/);
    }
    expect((await bash('ls -A deploy/prod | wc -l; echo x > deploy/other.txt && echo written')).text).toMatch(/^0\nwritten\n$/);
  });

  it('the rest of the workspace stays writable', async () => {
    const { status } = await bash('echo made > made.txt && mkdir -p out && echo y > out/y.txt');
    expect(status).toBe('success');
    expect(await readFile(join(workspace, 'out', 'y.txt'), 'utf8')).toBe('y\n');
  });
});
