import { execFileSync } from 'node:child_process';
import { chown, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { callApproving, makeWorkspace, NOBODY, removeAll, runningAsRoot } from './helpers.js';

/**
 * HOME is the workspace and Write is ALLOW, so a written
 * config could name a program for an ALLOW `git status` to run: two ALLOW
 * calls adding up to a deletion. Defence in depth: a Write or Edit of a file
 * that configures git (or the shell) is ASK, and even once approved, git
 * reads no global config and the program-running keys it can be told to
 * drop (core.fsmonitor…) are overridden at command-line precedence.
 */

let workspace: string;
let t: TestApp;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: workspace,
    env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });

beforeEach(async () => {
  workspace = await makeWorkspace();
  await mkdir(join(workspace, 'src'));
  await writeFile(join(workspace, 'src', 'keep.txt'), 'x\n');
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
  // What a command's `rm -rf src` could delete: owned by the user commands run as.
  if (runningAsRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, workspace]);
  t = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'required' } } } });
});
afterEach(async () => {
  await t?.close();
  await removeAll(workspace);
});

const write = (path: string, content: string) =>
  execute(t.app, [{ id: `w-${path}-${Math.random()}`, name: 'Write', arguments: { path, content } }]);

/** A Bash call that must be ALLOW (run without approval) and succeed; its text. */
async function allowed(command: string): Promise<string> {
  const { body } = await execute(t.app, [{ id: `b-${Math.random()}`, name: 'Bash', arguments: { command } }]);
  expect(body.results[0]).toMatchObject({ status: 'success' });
  return body.results[0].text;
}

const intact = async () => expect(await readFile(join(workspace, 'src', 'keep.txt'), 'utf8')).toBe('x\n');

/** Write `path` with `content`: asked for approval first, then approved and written. */
async function writeApproved(path: string, content: string) {
  const first = await write(path, content);
  expect(first.body.results[0].error).toMatchObject({ code: 'APPROVAL_REQUIRED' });
  const { body, asked } = await callApproving(t.app, 'Write', { path, content });
  expect(asked).toBe(true);
  expect(body.results[0].status).toBe('success');
}

const REPO_CORE = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n';

describe('git config written in the workspace never runs a program for an ALLOW git command', () => {
  it('~/.gitconfig with core.fsmonitor: the Write asks; approved, git status still does not run it', async () => {
    await writeApproved('.gitconfig', '[core]\n\tfsmonitor = "rm -rf src; false"\n');
    await allowed('git status --short');
    await intact();
  });

  it('.git/config with core.fsmonitor: the Write asks; approved, git status does not run it (overridden)', async () => {
    await writeApproved('.git/config', `${REPO_CORE}\tfsmonitor = "rm -rf src; false"\n`);
    await allowed('git status --short');
    await intact();
  });

  it("~/.gitconfig with diff.external: approved, git diff shows git's own diff and runs nothing", async () => {
    await writeFile(join(workspace, 'src', 'keep.txt'), 'x\ny\n');
    await writeApproved('.gitconfig', '[diff]\n\texternal = "rm -rf src; false"\n');
    expect(await allowed('git diff')).toContain('+y');
    expect(await readFile(join(workspace, 'src', 'keep.txt'), 'utf8')).toBe('x\ny\n');
  });

  it(".git/config with diff.external: the Write asks (no value neutralises it), so unapproved git diff stays git's own", async () => {
    await writeFile(join(workspace, 'src', 'keep.txt'), 'x\ny\n');
    const { body } = await write('.git/config', `${REPO_CORE}[diff]\n\texternal = "rm -rf src; false"\n`);
    expect(body.results[0].error).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    expect(await allowed('git diff')).toContain('+y');
    expect(await readFile(join(workspace, 'src', 'keep.txt'), 'utf8')).toBe('x\ny\n');
  });

  it.each([
    [
      '.git/config with diff.external',
      '.git/config',
      `${REPO_CORE}[diff]\n\texternal = "sh -c \\"rm -rf src; echo ran-it\\""\n`,
      'git diff',
    ],
    [
      'a textconv driver a .gitattributes selects',
      '.git/config',
      `${REPO_CORE}[diff "x"]\n\ttextconv = "sh -c \\"rm -rf src; echo ran-it\\""\n`,
      'git diff',
    ],
    [
      'a clean filter a .gitattributes selects',
      '.git/config',
      `${REPO_CORE}[filter "x"]\n\tclean = "sh -c \\"rm -rf src; echo ran-it >&2; cat\\""\n`,
      'git diff',
    ],
  ])('%s, approved: an ALLOW git command runs it, in a workspace that is read-only to it', async (_, path, content, command) => {
    await writeFile(join(workspace, 'src', 'keep.txt'), 'x\ny\n');
    await writeFile(join(workspace, '.gitattributes'), 'src/* diff=x filter=x\n');
    await writeApproved(path, content);
    const { body } = await execute(t.app, [{ id: `b-${Math.random()}`, name: 'Bash', arguments: { command } }]);
    expect(body.results[0].error?.code).not.toBe('APPROVAL_REQUIRED');
    // The program ran (git tried its driver), and the deletion it attempted failed on the read-only workspace.
    expect(JSON.stringify(body.results[0])).toMatch(/ran-it|Read-only file system/);
    expect(await readFile(join(workspace, 'src', 'keep.txt'), 'utf8')).toBe('x\ny\n');
  });

  it('a new repository made by an approved command, with diff.external in its config: git diff in it changes nothing', async () => {
    await callApproving(t.app, 'Bash', {
      command:
        "mkdir -p lab && cd lab && git init -q && printf '[diff]\\n\\texternal = rm -rf ../src\\n' >> .git/config && echo a > f && git add f && echo b > f",
    });
    expect(await readFile(join(workspace, 'lab', '.git', 'config'), 'utf8')).toContain('external');
    await execute(t.app, [{ id: 'lab-diff', name: 'Bash', arguments: { command: 'cd lab && git diff' } }]);
    await intact();
  });

  it('a command the classifier reads as read-only cannot write, and one approved can', async () => {
    const { body } = await execute(t.app, [
      { id: 'ro', name: 'Bash', arguments: { command: 'git status --short; if test -w src; then echo writable; else echo read-only; fi' } },
    ]);
    expect(body.results[0]).toMatchObject({ status: 'success', text: 'read-only\n' });
    const approved = await callApproving(t.app, 'Bash', { command: 'touch src/made' });
    expect(approved.body.results[0].status).toBe('success');
    expect(await readFile(join(workspace, 'src', 'made'), 'utf8')).toBe('');
  });

  it('a bare repository written as plain files (HEAD, config) is not found by walking into it', async () => {
    const files: Array<[string, string]> = [
      ['notes/evil/HEAD', 'ref: refs/heads/main\n'],
      ['notes/evil/config', '[core]\n\tbare = true\n'],
      ['notes/evil/objects/k', ''],
      ['notes/evil/refs/k', ''],
    ];
    for (const [path, content] of files) expect((await write(path, content)).body.results[0].status).toBe('success');
    const { body } = await execute(t.app, [{ id: 'bare', name: 'Bash', arguments: { command: 'cd notes/evil && git log' } }]);
    expect(body.results[0].text).toMatch(/cannot use bare repository/);
  });
});

describe('Write and Edit of a file that configures programs is ASK, in every spelling of its path', () => {
  beforeEach(async () => {
    await symlink('.git', join(workspace, 'gitlink'));
    await symlink('.git/config', join(workspace, 'notes.txt'));
    if (runningAsRoot)
      for (const link of ['gitlink', 'notes.txt']) await chown(join(workspace, link), NOBODY, NOBODY).catch(() => undefined);
  });

  it.each([
    '.git/config',
    './.git/config',
    'sub/../.git/config',
    'gitlink/config',
    'notes.txt',
    '.git/hooks/pre-commit',
    'sub/.git',
    'a/b/.git/config',
    '.gitconfig',
    '.gitattributes',
    'deep/dir/.gitattributes',
    '.gitmodules',
    '.bashrc',
    '.profile',
    '.bash_profile',
    '.inputrc',
    '.config/git/attributes',
  ])('Write %s: APPROVAL_REQUIRED', async (path) => {
    expect((await write(path, 'x\n')).body.results[0].error).toMatchObject({ code: 'APPROVAL_REQUIRED' });
  });

  it('Edit .git/config, and through a link to it: APPROVAL_REQUIRED', async () => {
    for (const path of ['.git/config', 'notes.txt']) {
      const { body } = await execute(t.app, [
        {
          id: `e-${path}`,
          name: 'Edit',
          arguments: { path, old_string: 'bare = false', new_string: 'bare = false\n\tfsmonitor = "rm -rf src; false"' },
        },
      ]);
      expect(body.results[0].error).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    }
    expect(await readFile(join(workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it.each(['sub/.bashrc', '.github/workflows/ci.yml', '.gitignore', 'src/git/config', 'docs/.git-notes'])(
    'Write %s: ALLOW as before',
    async (path) => {
      expect((await write(path, 'x\n')).body.results[0]).toMatchObject({ status: 'success' });
    },
  );
});
