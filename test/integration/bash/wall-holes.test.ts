import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createPolicy } from '../../../src/policy/index.js';
import { setUpBash } from '../../../src/tools/bash/index.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { callApproving, makeWorkspace, NOBODY, removeAll, runningAsRoot } from './helpers.js';

/**
 * The wall has no holes: what a rule masks is not read from a copy of it
 * (a repository's history and index), through a link's other name, and a
 * protected path that is missing cannot be made. Every command is made
 * ALLOW by a rule on Bash, so only the sandbox stands between it and the
 * files. Through POST /execute, with real bubblewrap.
 */

const SECRET = 'AKIA-wall-canary-5d1e';
const RULES = [
  { tool: '*', when: { path: '^secrets(/|$)' }, decision: 'deny' },
  { tool: '*', when: { path: '(^|/)\\.env$' }, decision: 'deny' },
  { tool: 'Read', when: { path: '^conf/prod\\.yml$' }, decision: 'deny' },
  { tool: 'Read', when: { path: '^envs/staging/stage\\.yml$' }, decision: 'deny' },
  { tool: 'Write', when: { path: '^conf/app\\.yml$' }, decision: 'deny' },
  { tool: 'Bash', when: { command: '.*' }, decision: 'allow' },
];

let workspace: string;
let t: TestApp;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });

beforeAll(async () => {
  workspace = await makeWorkspace();
  git(workspace, 'init', '-q');
  await mkdir(join(workspace, 'secrets'));
  await writeFile(join(workspace, 'secrets', 'api.key'), `${SECRET}-key\n`);
  await writeFile(join(workspace, '.env'), `${SECRET}-env\n`);
  await writeFile(join(workspace, 'f.txt'), 'plain\n');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-qm', 'first');
  // Staged only: its one copy outside the file is the index's object.
  await writeFile(join(workspace, 'secrets', 'staged.key'), `${SECRET}-staged\n`);
  git(workspace, 'add', 'secrets/staged.key');
  // A nested repository whose objects are packed, a bare clone, and links.
  const lib = join(workspace, 'vendor', 'lib');
  await mkdir(lib, { recursive: true });
  git(lib, 'init', '-q');
  await writeFile(join(lib, '.env'), `${SECRET}-nested\n`);
  git(lib, 'add', '-A');
  git(lib, 'commit', '-qm', 'lib');
  git(lib, 'repack', '-qad');
  await rm(join(lib, '.git', 'hooks'), { recursive: true, force: true });
  git(workspace, 'clone', '-q', '--bare', '.', 'backup.git');
  await mkdir(join(workspace, 'envs', 'production'), { recursive: true });
  await mkdir(join(workspace, 'envs', 'staging'), { recursive: true });
  await writeFile(join(workspace, 'envs', 'production', 'prod.yml'), `${SECRET}-prod\n`);
  await writeFile(join(workspace, 'envs', 'production', 'app.yml'), 'app: 1\n');
  await writeFile(join(workspace, 'envs', 'staging', 'stage.yml'), `${SECRET}-stage\n`);
  await symlink('envs/production', join(workspace, 'conf'));
  await symlink('envs/staging', join(workspace, 'stg'));
  await rm(join(workspace, '.git', 'hooks'), { recursive: true, force: true });
  // Protected names that are links to nothing yet: a write through one would make what the shell reads.
  await symlink('zprof.txt', join(workspace, '.zprofile'));
  // Another case of a protected name is another file here: it does not stand for `.gitconfig`.
  await writeFile(join(workspace, '.GITCONFIG'), '');
  await symlink('../../rcs/zsh', join(lib, '.zshrc'));
  if (runningAsRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, workspace]);
  // A repository the command's user cannot write in (another owner's, mode 755): nothing to keep there, nothing made.
  // Run unprivileged, no folder of another owner can be made; one of the gateway's own user made read-only refuses commands (see below).
  if (runningAsRoot) await mkdir(join(workspace, 'vendor', 'theirs', '.git'), { recursive: true, mode: 0o755 });
  t = await buildTestApp({ workspace, config: { builtins: { Bash: { enabled: true, sandbox: 'required' } }, policy: { rules: RULES } } });
});
afterAll(async () => {
  await t?.close();
  if (!runningAsRoot) execFileSync('chmod', ['-R', 'u+w', workspace]);
  await removeAll(workspace);
});

async function bash(app: TestApp['app'], command: string): Promise<string> {
  const { body } = await callApproving(app, 'Bash', { command });
  const result = body.results[0];
  expect(result.error?.code ?? 'COMMAND_FAILED').toBe('COMMAND_FAILED');
  const text = String(result.text ?? '');
  expect(text).not.toMatch(/^bwrap: /m);
  return text;
}

describe("a repository's history and index hold no copy of a masked file inside the sandbox", () => {
  it.each([
    'git show HEAD:secrets/api.key',
    'git cat-file -p HEAD:.env',
    'git grep -e AKIA HEAD',
    'git show :secrets/staged.key',
    'git log -p',
    'git stash list -p; git diff --cached',
    'git -C vendor/lib show HEAD:.env; git -C vendor/lib log -p',
    'git --git-dir=backup.git show HEAD:secrets/api.key; git --git-dir=backup.git log -p',
    'git --git-dir=vendor/lib/.git cat-file --batch-all-objects --batch',
    "for f in $(find .git backup.git vendor -path '*objects/??/*' -type f); do perl -MCompress::Zlib -e 'undef $/; print uncompress(<>)' < $f; done",
    "cat vendor/lib/.git/objects/pack/*.pack | perl -MCompress::Zlib -e 'undef $/; $d=<>; while ($d =~ /(\\x78[\\x01\\x9c\\xda])/g) { print uncompress(substr($d, pos($d)-2)) }'",
    'git -C vendor/lib unpack-objects < /dev/null; cp -r .git /tmp/g && git --git-dir=/tmp/g show HEAD:.env',
  ])('%s prints none of them', async (command) => {
    expect(await bash(t.app, command)).not.toContain(SECRET);
  });

  it('what is not masked still reads, and the files themselves are where they were', async () => {
    expect(await bash(t.app, 'cat f.txt; ls .git/objects | wc -l')).toBe('plain\n0\n');
    expect(execFileSync('git', ['-c', 'safe.directory=*', 'show', 'HEAD:secrets/api.key'], { cwd: workspace }).toString()).toContain(
      SECRET,
    );
  });
});

describe('a rule naming a path through a directory link holds for its target', () => {
  it.each([
    'cat conf/prod.yml',
    'cat envs/production/prod.yml',
    'cat stg/stage.yml',
    'cat envs/staging/stage.yml',
    'grep -r AKIA envs conf/ stg/',
  ])('%s reads nothing of it', async (command) => {
    expect(await bash(t.app, command)).not.toContain(SECRET);
  });

  it('a rule for writing through the link makes the target read-only', async () => {
    await bash(t.app, 'echo changed > envs/production/app.yml; echo changed > conf/app.yml');
    expect(await readFile(join(workspace, 'envs', 'production', 'app.yml'), 'utf8')).toBe('app: 1\n');
  });
});

describe('a rule naming a path through a directory link holds for its target in the file tools too', () => {
  it.each(['envs/production/prod.yml', './envs/production/../production/prod.yml'])('Read %s is refused', async (path) => {
    const { body } = await callApproving(t.app, 'Read', { path });
    expect(body.results[0].error?.code).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it.each([
    ['Grep', { pattern: 'AKIA', path: 'envs' }],
    ['Grep', { pattern: 'AKIA', path: 'envs/production' }],
    ['Glob', { pattern: '**/prod.yml', path: 'envs' }],
    ['LS', { path: 'envs/production' }],
  ])('%s %j withholds it', async (tool, args) => {
    const { body } = await callApproving(t.app, tool, args);
    expect(body.results[0].status).toBe('success');
    expect(body.results[0].text).not.toMatch(new RegExp(`${SECRET}-prod|prod\\.yml`));
  });

  it('Write of the target is refused', async () => {
    const { body } = await callApproving(t.app, 'Write', { path: 'envs/production/app.yml', content: 'changed\n' });
    expect(body.results[0].error?.code).toBe('PERMISSION_DENIED');
    expect(await readFile(join(workspace, 'envs', 'production', 'app.yml'), 'utf8')).toBe('app: 1\n');
  });
});

describe('a protected path that is missing cannot be made, and leaves nothing on the host', () => {
  const listing = async (dir: string) => (await readdir(join(workspace, dir))).sort();
  it.each([
    ['echo x > .bashrc', '.bashrc'],
    ['echo >> .bash_profile', '.bash_profile'],
    ['ln -s f.txt .bashrc', '.bashrc'],
    ["printf '[core]\\n' > .gitconfig", '.gitconfig'],
    ['cp f.txt .gitconfig', '.gitconfig'],
    ["echo '* diff=x' > .gitattributes", '.gitattributes'],
    ['printf \'[submodule "x"]\\n\' > .gitmodules', '.gitmodules'],
    ['mv f.txt .profile; cp f.txt .zshrc; touch .zprofile .bash_login .bash_logout', '.profile'],
    ['echo x > vendor/lib/.bashrc; ln -s ../../f.txt vendor/lib/.gitattributes', 'vendor/lib/.bashrc'],
    ['mkdir -p .git/hooks && printf "#!/bin/sh\\ntouch pwned\\n" > .git/hooks/pre-commit', '.git/hooks'],
    ['echo x > vendor/lib/.git/hooks/post-checkout', 'vendor/lib/.git/hooks'],
    ['echo x > .zprofile; cp f.txt zprof.txt', 'zprof.txt'],
    ['mkdir -p rcs; echo x > vendor/lib/.zshrc; echo x > rcs/zsh', 'rcs'],
    ['echo ../evil > .git/commondir', '.git/commondir'],
    ['echo .. > vendor/lib/.git/commondir; echo .. > backup.git/commondir', 'vendor/lib/.git/commondir'],
    ['echo .. > backup.git/commondir', 'backup.git/commondir'],
    ["mkdir -p vendor/lib/.git/info; echo '* diff=x' > vendor/lib/.git/info/attributes", 'vendor/lib/.git/info/attributes'],
  ])('%s makes no %s', async (command, path) => {
    const before = { root: await listing('.'), lib: await listing('vendor/lib'), git: await listing('.git') };
    await bash(t.app, command);
    await expect(readFile(join(workspace, path))).rejects.toThrow(/ENOENT/);
    expect({ root: await listing('.'), lib: await listing('vendor/lib'), git: await listing('.git') }).toEqual(before);
    expect(await readFile(join(workspace, 'f.txt'), 'utf8')).toBe('plain\n');
  });

  it('the rest of the root stays writable, with a repository the command cannot write in below it', async () => {
    expect(await bash(t.app, 'echo made > made.txt && cat made.txt && rm made.txt')).toBe('made\n');
    if (runningAsRoot) expect(await readdir(join(workspace, 'vendor', 'theirs'))).toEqual(['.git']);
  });
});

describe("a folder's mode set by one command does not open the wall for the next", () => {
  const refused = async (command: string) => (await callApproving(t.app, 'Bash', { command })).body.results[0].error;

  it.each(['.', 'vendor/lib'])('%s made read-only by its owner: the next command is refused, no protected file made', async (dir) => {
    await bash(t.app, `chmod 500 ${dir}`);
    try {
      const error = await refused(`chmod 700 ${dir}; echo x > ${dir}/.bashrc; cat ${dir}/.env`);
      expect(error).toMatchObject({ code: 'EXECUTION_FAILED', message: expect.stringContaining('may not write in it') });
      await expect(readFile(join(workspace, dir, '.bashrc'))).rejects.toThrow(/ENOENT/);
    } finally {
      execFileSync('chmod', ['u+w', join(workspace, dir)]);
    }
    expect(await bash(t.app, 'echo ok')).toBe('ok\n');
  });

  // Run as root, the gateway lists any folder: the unlistable folder is pinned in unlistable-walk.test.ts, with the gateway unprivileged.
  it.skipIf(runningAsRoot)('a folder its owner made unlistable: the next command is refused', async () => {
    await bash(t.app, 'chmod 300 secrets');
    try {
      const error = await refused('chmod 700 secrets; cat secrets/api.key');
      expect(error).toMatchObject({ code: 'EXECUTION_FAILED', message: expect.stringContaining('could not read secrets') });
    } finally {
      execFileSync('chmod', ['u+r', join(workspace, 'secrets')]);
    }
  });
});

describe('what changes which config, attributes, hooks and objects git uses is read-only in every git directory', () => {
  it("a planted config cannot become the repository's through commondir, info/ or config.worktree", async () => {
    const exclude = await readFile(join(workspace, '.git', 'info', 'exclude'), 'utf8');
    await bash(
      t.app,
      "mkdir -p evil/objects evil/refs && printf '[diff]\\n\\texternal = /bin/echo EXTERNAL-RAN\\n' > evil/config; " +
        "echo ../evil > .git/commondir; echo '* diff=x' > .git/info/attributes; echo x >> .git/info/exclude; " +
        "printf '[diff]\\n\\texternal = /bin/echo EXTERNAL-RAN\\n' > .git/config.worktree",
    );
    await expect(readFile(join(workspace, '.git', 'commondir'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(workspace, '.git', 'info', 'attributes'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(workspace, '.git', 'config.worktree'))).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(workspace, '.git', 'info', 'exclude'), 'utf8')).toBe(exclude);
    const shown = await bash(
      t.app,
      'git -c extensions.worktreeConfig=true config --show-origin diff.external; git rev-parse --git-common-dir',
    );
    expect(shown).not.toMatch(/EXTERNAL-RAN|evil/);
    expect(shown).toContain('.git');
    execFileSync('rm', ['-rf', join(workspace, 'evil')]);
  });
});

describe('placeholders shared by commands running at once', () => {
  it('one ending does not take away the placeholder another stands on', async () => {
    const slow = bash(t.app, 'sleep 1.5; echo x > .bash_logout; echo status=$?');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await bash(t.app, 'echo quick > quick.txt; rm quick.txt; echo done')).toBe('done\n');
    expect(await slow).toMatch(/status=1/);
    await expect(readFile(join(workspace, '.bash_logout'))).rejects.toThrow(/ENOENT/);
  });
});

describe('git_history: visible', () => {
  it('shows the history, and says so at start-up', async () => {
    const visible = await buildTestApp({
      workspace,
      config: { builtins: { Bash: { enabled: true, sandbox: 'required', git_history: 'visible' } }, policy: { rules: RULES } },
    });
    try {
      expect(await bash(visible.app, 'git log --format=%s')).toBe('first\n');
      // The object store is not masked: what other stores git reads objects from stays the repository's.
      await bash(visible.app, 'echo /tmp/elsewhere > .git/objects/info/alternates; echo x > vendor/lib/.git/objects/info/http-alternates');
      await expect(readFile(join(workspace, '.git', 'objects', 'info', 'alternates'))).rejects.toThrow(/ENOENT/);
      await expect(readFile(join(workspace, 'vendor', 'lib', '.git', 'objects', 'info', 'http-alternates'))).rejects.toThrow(/ENOENT/);
    } finally {
      await visible.close();
    }
    const settings = configFrom({ workspace, builtins: { Bash: { enabled: true, sandbox: 'required', git_history: 'visible' } } });
    const { warnings } = setUpBash(
      settings.builtins.Bash,
      workspace,
      true,
      createPolicy(configFrom({ workspace, policy: { rules: RULES } }).policy.rules),
    );
    expect(warnings).toContainEqual(expect.stringMatching(/^builtins\.Bash\.git_history is visible: .*git show HEAD:path/));
  });
});
