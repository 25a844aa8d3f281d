import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, type PolicyRuleSpec } from '../../../../src/policy/index.js';
import { PROTECTED_FILES } from '../../../../src/tools/bash/git-dirs.js';
import { keptFolders, mountArgs, planMounts } from '../../../../src/tools/bash/mounts.js';

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
  await mkdir(join(ws, 'app', 'config', 'keys'), { recursive: true });
  await writeFile(join(ws, 'app', 'config', 'keys', 'k.pem'), 'k');
  await mkdir(join(ws, 'Mixed', '.GIT', 'modules', 'lib'), { recursive: true });
  await writeFile(join(ws, 'Mixed', '.GIT', 'Config'), '');
  await writeFile(join(ws, 'Mixed', '.GIT', 'modules', 'lib', 'HEAD'), '');
  await writeFile(join(ws, 'Mixed', '.GIT', 'modules', 'lib', 'config'), '');
  await mkdir(join(ws, 'Mixed', 'lib'));
  await writeFile(join(ws, 'Mixed', 'lib', '.git'), 'gitdir: ../.GIT/modules/lib\n');
  await writeFile(join(ws, 'Mixed', '.GitAttributes'), '');
});
afterAll(() => rm(ws, { recursive: true, force: true }));

const rules = (specs: PolicyRuleSpec[]) => createPolicy(specs);
const NAMES = { 'mask-folder': 'empty folder', 'mask-file': 'empty file', freeze: 'read-only', pin: 'pinned' } as const;
/** The plan as `what path` lines, sorted, without the placeholders of missing protected paths (their own test below). */
const plan = async (specs: PolicyRuleSpec[], options: { readOnly?: boolean } = {}) =>
  (await planMounts(ws, rules(specs), options))
    .filter((m) => !m.placeholder)
    .map((m) => `${NAMES[m.kind]} ${m.rel}`)
    .sort();
const PROTECTED = [
  'pinned Mixed',
  'pinned Mixed/.GIT',
  'pinned Mixed/.GIT/modules',
  'pinned Mixed/.GIT/modules/lib',
  'pinned Mixed/lib',
  'pinned sub',
  'pinned sub/.git',
  'read-only .bashrc',
  'read-only Mixed/.GIT/Config',
  'read-only Mixed/.GIT/modules/lib/config',
  'read-only Mixed/.GitAttributes',
  'read-only Mixed/lib/.git',
  'read-only sub/.git/config',
  'read-only sub/.gitmodules',
];

describe('the mounts a policy becomes inside the sandbox', () => {
  it('masks what is denied or asked for reading, freezes what is for writing and the protected files, follows a named link', async () => {
    const specs: PolicyRuleSpec[] = [
      { tool: '*', when: { path: '^secrets/' }, decision: 'deny' },
      { tool: 'Read', when: { path: '(^|/)\\.env$' }, decision: 'ask' },
      { tool: 'Edit', when: { path: '^infra/' }, decision: 'deny' },
      { tool: 'Read', when: { path: '^alias$' }, decision: 'deny' },
    ];
    expect(await plan(specs)).toEqual([...PROTECTED, 'empty file .env', 'empty folder secrets', 'read-only infra'].sort());
  });

  it("with no rules, only the protected files: in every repository, a submodule's git directory and .git file included, whatever their case", async () => {
    expect(await plan([])).toEqual(PROTECTED);
  });

  it('a missing protected path gets a read-only placeholder, at the root and in every repository, but not with the workspace read-only', async () => {
    const placeholders = (await planMounts(ws, rules([]))).filter((m) => m.placeholder);
    expect(placeholders.every((m) => m.creates)).toBe(true);
    // A missing commondir names the git directory itself: an empty one would stop git.
    expect(placeholders.filter((m) => m.content).map((m) => `${m.rel}: ${m.content}`)).toEqual(
      expect.arrayContaining(['sub/.git/commondir: .\n']),
    );
    const lines = placeholders.map((m) => `${NAMES[m.kind]} ${m.rel}`);
    const missing = (dir: string, present: string[]) =>
      PROTECTED_FILES.filter((name) => !present.includes(name)).map((name) => `empty file ${dir}${name}`);
    expect(lines.sort()).toEqual(
      [
        ...missing('', ['.bashrc']),
        ...missing('sub/', ['.gitmodules']),
        // `.GitAttributes` and `.GIT/Config` are there, but on this case-sensitive file system `.gitattributes` and `config` are not.
        ...missing('Mixed/', []),
        'empty file Mixed/.GIT/config',
        ...missing('Mixed/lib/', []),
        'empty folder Mixed/.GIT/hooks',
        'empty folder sub/.git/hooks',
        ...['Mixed/.GIT', 'Mixed/.GIT/modules/lib', 'sub/.git'].flatMap((git) => [
          `empty file ${git}/commondir`,
          `empty file ${git}/config.worktree`,
          `empty folder ${git}/info`,
        ]),
      ].sort(),
    );
    expect((await planMounts(ws, rules([]), { readOnly: true })).filter((m) => m.placeholder)).toEqual([]);
  });

  it('pins every folder above a mount, so none can be moved away with what it hides; shallow mounts come first', async () => {
    const specs: PolicyRuleSpec[] = [{ tool: 'Grep', when: { path: '^app/config/keys/' }, decision: 'deny' }];
    const planned = await planMounts(ws, rules(specs));
    expect(planned.filter((m) => m.rel.startsWith('app')).map((m) => `${NAMES[m.kind]} ${m.rel}`)).toEqual([
      'pinned app',
      'pinned app/config',
      'empty folder app/config/keys',
    ]);
    const depths = planned.map((m) => m.rel.split('/').length);
    expect(depths).toEqual([...depths].sort((a, b) => a - b));
  });

  it('nothing is mounted below a masked folder, and a link into one adds nothing', async () => {
    await symlink('keys/k.pem', join(ws, 'app', 'config', 'pem'));
    try {
      const specs: PolicyRuleSpec[] = [
        { tool: '*', when: { path: '^app/config/' }, decision: 'deny' },
        { tool: 'Read', when: { path: '^app/config/pem$' }, decision: 'deny' },
      ];
      expect((await plan(specs)).filter((line) => line.includes('app'))).toEqual(['empty folder app/config', 'pinned app']);
    } finally {
      await rm(join(ws, 'app', 'config', 'pem'));
    }
  });

  it('with the workspace read-only, only the masks of what exists', async () => {
    const specs: PolicyRuleSpec[] = [
      { tool: '*', when: { path: '^secrets/' }, decision: 'deny' },
      { tool: 'Edit', when: { path: '^infra/' }, decision: 'deny' },
    ];
    expect(await plan(specs, { readOnly: true })).toEqual(['empty folder secrets']);
  });

  it('becomes bubblewrap arguments: a tmpfs remounted read-only, the empty file, read-only and writable binds onto themselves', async () => {
    const specs: PolicyRuleSpec[] = [
      { tool: '*', when: { path: '^app/config/keys/' }, decision: 'deny' },
      { tool: 'Read', when: { path: '^\\.env$' }, decision: 'deny' },
    ];
    const planned = (await planMounts(ws, rules(specs))).filter(
      (m) => !m.rel.startsWith('Mixed') && !m.rel.startsWith('sub') && m.rel !== '.bashrc' && !m.placeholder,
    );
    const args = await mountArgs(ws, planned);
    const at = (rel: string) => join(ws, rel);
    expect(args.slice(0, 3)).toEqual(['--ro-bind', expect.stringMatching(/empty$/), at('.env')]);
    expect(args.slice(3)).toEqual([
      '--bind',
      at('app'),
      at('app'),
      '--bind',
      at('app/config'),
      at('app/config'),
      '--tmpfs',
      at('app/config/keys'),
      '--remount-ro',
      at('app/config/keys'),
    ]);
  });

  it('a folder a rule for writing keeps whole is kept before it exists: the shallowest missing folder on the way, made empty and read-only', async () => {
    const specs: PolicyRuleSpec[] = [
      { tool: 'Write', when: { path: '^build/out/' }, decision: 'deny' },
      { tool: 'Edit', when: { path: '^app/config/new/' }, decision: 'ask' },
    ];
    const planned = await planMounts(ws, rules(specs));
    const lines = planned
      .filter((m) => m.rel.startsWith('build') || m.rel.startsWith('app'))
      .map((m) => `${NAMES[m.kind]} ${m.rel}${m.creates ? ' (made)' : ''}`);
    expect(lines.sort()).toEqual(['empty folder app/config/new (made)', 'empty folder build (made)', 'pinned app', 'pinned app/config']);
    expect((await planMounts(ws, rules(specs), { readOnly: true })).filter((m) => m.creates)).toEqual([]);
  });

  it.each([
    ['^build/out/', ['build/out'], []],
    ['^(?:build)/out/', ['build/out'], []],
    ['^build', [], [0]],
    ['^build/.*\\.js$', [], [0]],
    ['^\\.env$', [], [0]],
    ['\\.env$', [], [0]],
    ['(^|/)dist/', [], [0]],
    ['^\\./x/', [], [0]],
  ])('a rule for writing on %s keeps %j, its new paths creatable: %j', (path, folders, creatable) => {
    expect(keptFolders(rules([{ tool: 'Write', when: { path }, decision: 'deny' }]))).toEqual({ folders, creatable });
  });

  it('rules for reading only keep no folder and warn of nothing', () => {
    expect(keptFolders(rules([{ tool: 'Read', when: { path: '\\.env$' }, decision: 'deny' }]))).toEqual({ folders: [], creatable: [] });
  });

  it('a workspace past the walk limit refuses the command rather than leave a rule unmounted', async () => {
    await expect(planMounts(ws, rules([]), { limit: 3 })).rejects.toMatchObject({
      code: 'EXECUTION_FAILED',
      message: expect.stringMatching(/more than 3 entries/),
    });
  });
});
