import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { makeWorkspace, NOBODY, removeAll, runningAsRoot } from './helpers.js';

/**
 * The none tier's inert core (docs/bash.md), program by program, option by
 * option, through POST /execute with `sandbox: none`: what the core keeps
 * runs without an approval and does what it says; every option left out of
 * it, every operand leading out of the workspace (by its spelling or
 * through a link), and git on a repository whose config names a program,
 * asks. A read rule on `secrets/` holds for the operands and for walks.
 */

const token = `sentinel-${randomBytes(8).toString('hex')}`;
let workspace: string;
let outside: string;
let t: TestApp;
let calls = 0;

const git = (cwd: string, ...args: string[]) =>
  spawnSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, encoding: 'utf8' });

async function repository(dir: string): Promise<void> {
  await writeFile(join(dir, 'f.txt'), 'hello\nworld\n');
  git(dir, 'init', '-q');
  git(dir, 'add', 'f.txt');
  git(dir, 'commit', '-qm', 'first');
  // Commands run as the workspace's owner; git refuses a repository another user owns.
  if (runningAsRoot) spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
}

beforeAll(async () => {
  workspace = await makeWorkspace();
  outside = await mkdtemp(join(tmpdir(), 'toolgate-core-outside-'));
  await writeFile(join(outside, 'secret.txt'), `${token}\n`, { mode: 0o644 });
  await mkdir(join(workspace, 'sub'));
  await writeFile(join(workspace, 'sub', 'g.txt'), 'in sub\n');
  await mkdir(join(workspace, 'secrets'));
  await writeFile(join(workspace, 'secrets', 'k'), `${token}\n`);
  await symlink(join(outside, 'secret.txt'), join(workspace, 'link-out'));
  await symlink(outside, join(workspace, 'dir-out'));
  await repository(workspace);
  t = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } } } });
});
afterAll(async () => {
  await t?.close();
  await removeAll(workspace, outside);
});

async function bash(app: TestApp['app'], command: string) {
  const { body } = await execute(app, [{ id: `c${++calls}`, name: 'Bash', arguments: { command } }]);
  return body.results[0];
}

describe('tier none: what the core keeps runs without an approval', () => {
  it.each([
    ['cat -n f.txt', '     1\thello\n     2\tworld\n'],
    ['head -n 1 f.txt', 'hello\n'],
    ['tail -c 6 f.txt', 'world\n'],
    ['wc -l f.txt', '2 f.txt\n'],
    ['ls sub', 'g.txt\n'],
    ['grep -rn world .', './f.txt:2:world\n'],
    ['sort -r f.txt', 'world\nhello\n'],
    ['uniq -c f.txt', '      1 hello\n      1 world\n'],
    ['cut -c1-2 f.txt', 'he\nwo\n'],
    ['nl f.txt', '     1\thello\n     2\tworld\n'],
    ['tac f.txt', 'world\nhello\n'],
    ['rev f.txt', 'olleh\ndlrow\n'],
    ['comm -12 f.txt f.txt', 'hello\nworld\n'],
    ['diff -u f.txt f.txt', ''],
    ['cmp f.txt f.txt', ''],
    ['echo ab | tr a-z A-Z', 'AB\n'],
    ['base64 -w0 f.txt', 'aGVsbG8Kd29ybGQK'],
    ['stat -c %s f.txt', '12\n'],
    ['basename a/b.txt .txt; dirname a/b.txt', 'b\na\n'],
    ['seq 2', '1\n2\n'],
    ['sed -n 2p f.txt', 'world\n'],
    ['find sub -name g.txt', 'sub/g.txt\n'],
    ['cd sub && cat g.txt', 'in sub\n'],
    ['git log --oneline --format=%s', 'first\n'],
    ['git show --stat --format=%s HEAD', expect.stringContaining('f.txt')],
    ['git status --short', expect.any(String)],
    ['git diff --stat', ''],
    ['git branch --show-current', expect.stringMatching(/^\w+\n$/)],
    ['echo "$HOME" | wc -l', '1\n'],
  ])('%s', async (command, text) => {
    expect(await bash(t.app, command)).toMatchObject({ status: 'success', text });
  });

  it('grep -r does not follow the links it meets: the outside file is not read', async () => {
    const result = await bash(t.app, `grep -r ${token} . ; true`);
    expect(result.status).toBe('success');
    expect(result.text).not.toContain('secret.txt');
  });
});

describe('tier none: everything else asks', () => {
  it.each([
    // Options the core leaves out: they follow, write, read other files, or run programs.
    'tail -f f.txt',
    'sort -o out f.txt',
    'sort -T . f.txt',
    'uniq f.txt out',
    'wc --files0-from=f.txt',
    'diff -r sub sub',
    'grep -f f.txt f.txt',
    'grep -R x .',
    'ls -L',
    "sed -n '1w out' f.txt",
    'sed p f.txt',
    // An option after the script: GNU sed reads it (--expr is --expression), outside the core's 'N,Mp' form.
    'sed -n 1p --expr=x f.txt',
    'date -s now',
    'date 0101',
    'date -r f.txt',
    'find -L .',
    'find . -newer f.txt',
    'find . -printf %p',
    'stat -L f.txt',
    'md5sum -c f.txt',
    'base64 f.txt out',
    // git beyond the fixed set.
    'git diff --no-index f.txt sub/g.txt',
    'git diff --output=x',
    'git log --ext-diff -p',
    'git log --show-signature',
    'git log --format=%GS',
    "git log '--format=%+G?'",
    'git log --pretty=mine',
    'git -C . status',
    'git -c color.ui=always log',
    'git branch new',
    'git diff ../x f.txt',
    'git grep hello',
    'cd sub && git status',
    // Operands outside the workspace, by spelling or through a link.
    'cat link-out',
    'cat dir-out/secret.txt',
    'cd dir-out',
    'head < link-out',
    'cat /etc/hostname',
    'ls ..',
    'cd ..',
    'cd',
    'cd -',
    'cat "$HOME/x"',
    'ls *',
    'echo $HOME',
    // Programs outside the core.
    "awk '{print}' f.txt",
    'jq . f.txt',
    'echo f.txt | xargs cat',
    'env cat f.txt',
    'nice cat f.txt',
    'timeout 5 cat f.txt',
    'file f.txt',
    'rg hello',
    'tree',
  ])('%s', async (command) => {
    const result = await bash(t.app, command);
    expect(result.error?.code).toBe('APPROVAL_REQUIRED');
    expect(JSON.stringify(result)).not.toContain(token);
  });
});

describe('tier none: git on a repository whose config names a program, and a read rule', () => {
  it('a textconv, filter, worktree, mailmap or order file, promisor remote, include or alternates in the repository: git asks', async () => {
    const repo = await makeWorkspace();
    await repository(repo);
    const app = (await buildTestApp({ workspace: repo, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } } } })).app;
    try {
      expect((await bash(app, 'git log --oneline --format=%s')).text).toBe('first\n');
      const planted = [
        '[diff "x"]\n\ttextconv = touch ran\n',
        '[filter "x"]\n\tclean = touch ran\n',
        '[core]\n\tworktree = /\n',
        // git log prints the names a mailmap file outside the workspace gives; diff.orderFile reads one too.
        `[mailmap]\n\tfile = ${join(outside, 'secret.txt')}\n`,
        `[diff]\n\torderFile = ${join(outside, 'secret.txt')}\n`,
        // A partial clone fetches a missing object on `git log -p`: a socket to the remote, or remote.*.uploadpack run for a local one.
        '[extensions]\n\tpartialClone = origin\n',
        '[remote "origin"]\n\turl = https://example.invalid/r.git\n\tpromisor = true\n',
        `[remote "origin"]\n\turl = ${outside}\n\tuploadpack = touch ran; git-upload-pack\n`,
      ];
      for (const config of planted) {
        await writeFile(join(repo, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n${config}`);
        expect((await bash(app, 'git diff')).error?.code).toBe('APPROVAL_REQUIRED');
      }
      await writeFile(join(repo, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
      await writeFile(join(repo, '.git', 'objects', 'info', 'alternates'), `${outside}\n`);
      expect((await bash(app, 'git log')).error?.code).toBe('APPROVAL_REQUIRED');
    } finally {
      await app.close();
      await removeAll(repo);
    }
  });

  it("a submodule or nested repository: git status would run its config's filter, so git asks", async () => {
    const repo = await makeWorkspace();
    const sub = join(repo, 'sub');
    await mkdir(sub);
    await repository(sub);
    await repository(repo);
    git(repo, 'add', 'sub');
    git(repo, 'commit', '-qm', 'sub');
    // The nested repository's own config and attributes: a clean filter that git status runs on a file it must hash again.
    await writeFile(join(sub, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n[filter "x"]\n\tclean = touch ran; cat\n');
    await writeFile(join(sub, '.git', 'info', 'attributes'), '* filter=x\n');
    await writeFile(join(sub, 'f.txt'), 'HELLO\nworld\n');
    if (runningAsRoot) spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, repo]);
    const app = (await buildTestApp({ workspace: repo, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } } } })).app;
    try {
      for (const command of ['git status --short', 'git diff', 'git diff --stat']) {
        expect((await bash(app, command)).error?.code).toBe('APPROVAL_REQUIRED');
      }
      expect(existsSync(join(sub, 'ran'))).toBe(false);
    } finally {
      await app.close();
      await removeAll(repo);
    }
  });

  it.each(['objects', 'refs', 'index'])(
    ".git/%s a link to another repository's: git would read that one's history, so git asks",
    async (entry) => {
      const repo = await makeWorkspace();
      const other = await makeWorkspace();
      await repository(other);
      await repository(repo);
      await rename(join(repo, '.git', entry), join(repo, '.git', `${entry}.own`));
      await symlink(join(other, '.git', entry), join(repo, '.git', entry));
      const app = (await buildTestApp({ workspace: repo, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } } } })).app;
      try {
        for (const command of ['git log', 'git status --short', 'git show HEAD']) {
          expect((await bash(app, command)).error?.code, command).toBe('APPROVAL_REQUIRED');
        }
      } finally {
        await app.close();
        await removeAll(repo);
        await removeAll(other);
      }
    },
  );

  it('a read rule on secrets/: its paths, and any walk or history, ask', async () => {
    const rules = [{ tool: 'Read', when: { path: '^secrets(/|$)' }, decision: 'deny' }];
    const ruled = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'none' } }, policy: { rules } } });
    try {
      for (const command of ['cat secrets/k', 'cd secrets && cat k', 'grep -r sentinel .', 'find .', 'git log -p']) {
        const result = await bash(ruled.app, command);
        expect(result.error?.code).toBe('APPROVAL_REQUIRED');
        expect(JSON.stringify(result)).not.toContain(token);
      }
      expect((await bash(ruled.app, 'cat f.txt')).text).toBe('hello\nworld\n');
    } finally {
      await ruled.close();
    }
  });
});
