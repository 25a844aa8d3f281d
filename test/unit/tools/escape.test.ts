import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../src/tools/tool.js';
import { makeSandbox, run, SENTINEL, type Sandbox } from './fixtures.js';

type Outcome = 'PERMISSION_DENIED' | 'INVALID_ARGS' | 'NOT_FOUND' | 'confined';

interface Attempt {
  name: string;
  tool: string;
  args: (sb: Sandbox) => Record<string, unknown>;
  /** An error code, or `confined`: the call may succeed but only inside the workspace. */
  outcome: Outcome;
}

const secret = (sb: Sandbox): string => path.join(sb.outside, 'secret.txt');

// Rule: no path may resolve outside the workspace root, symlinks included.
const attempts: Attempt[] = [
  { name: 'Read ../ escape', tool: 'Read', args: () => ({ path: '../outside/secret.txt' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Read a/../../ escape', tool: 'Read', args: () => ({ path: 'a/../../outside/secret.txt' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Read ./../ escape', tool: 'Read', args: () => ({ path: './../outside/secret.txt' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Read /etc/passwd', tool: 'Read', args: () => ({ path: '/etc/passwd' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Read absolute path outside', tool: 'Read', args: (sb) => ({ path: secret(sb) }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Read absolute path in a sibling sharing the root prefix',
    tool: 'Read',
    args: (sb) => ({ path: path.join(sb.sibling, 'secret.txt') }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Read ../ws-evil sibling', tool: 'Read', args: () => ({ path: '../ws-evil/secret.txt' }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Read absolute path through the root and ..',
    tool: 'Read',
    args: (sb) => ({ path: `${sb.root}/../outside/secret.txt` }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Read file symlink to outside', tool: 'Read', args: () => ({ path: 'file-link' }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Read through dir symlink to outside',
    tool: 'Read',
    args: () => ({ path: 'dir-link/secret.txt' }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Read symlink chain ending outside', tool: 'Read', args: () => ({ path: 'chain-1' }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Read through a relative dir symlink climbing out',
    tool: 'Read',
    args: () => ({ path: 'nested/up-link/secret.txt' }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Read symlink loop', tool: 'Read', args: () => ({ path: 'loop-a' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Read NUL byte', tool: 'Read', args: () => ({ path: 'foo\0bar' }), outcome: 'INVALID_ARGS' },
  {
    name: 'Read NUL byte hiding an escape',
    tool: 'Read',
    args: () => ({ path: 'ok.txt\0../../outside/secret.txt' }),
    outcome: 'INVALID_ARGS',
  },
  {
    name: 'Read URL-encoded %2e%2e/ (taken literally)',
    tool: 'Read',
    args: () => ({ path: '%2e%2e/outside/secret.txt' }),
    outcome: 'NOT_FOUND',
  },
  { name: 'Read backslashes', tool: 'Read', args: () => ({ path: '..\\outside\\secret.txt' }), outcome: 'INVALID_ARGS' },
  { name: 'Read empty path', tool: 'Read', args: () => ({ path: '' }), outcome: 'INVALID_ARGS' },
  { name: 'Write ../ escape', tool: 'Write', args: () => ({ path: '../outside/new.txt', content: 'pwned' }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Write absolute path outside',
    tool: 'Write',
    args: (sb) => ({ path: path.join(sb.outside, 'new.txt'), content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Write over the sentinel through a file symlink',
    tool: 'Write',
    args: () => ({ path: 'file-link', content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Write with a dir symlink as parent',
    tool: 'Write',
    args: () => ({ path: 'dir-link/new.txt', content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Write new dirs below a dir symlink',
    tool: 'Write',
    args: () => ({ path: 'dir-link/sub/deep.txt', content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Write through a dangling symlink to outside',
    tool: 'Write',
    args: () => ({ path: 'dangling', content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Write below a dangling dir symlink',
    tool: 'Write',
    args: () => ({ path: 'dangling-dir/x.txt', content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Write through a relative dir symlink climbing out',
    tool: 'Write',
    args: () => ({ path: 'nested/up-link/new.txt', content: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Write NUL byte', tool: 'Write', args: () => ({ path: 'x\0y', content: 'pwned' }), outcome: 'INVALID_ARGS' },
  {
    name: 'Write URL-encoded %2e%2e/ stays inside',
    tool: 'Write',
    args: () => ({ path: '%2e%2e/new.txt', content: 'fine' }),
    outcome: 'confined',
  },
  {
    name: 'Edit the sentinel through a file symlink',
    tool: 'Edit',
    args: () => ({ path: 'file-link', old_string: 'SENTINEL', new_string: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  {
    name: 'Edit ../ escape',
    tool: 'Edit',
    args: () => ({ path: '../outside/secret.txt', old_string: 'SENTINEL', new_string: 'pwned' }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Glob pattern ../**', tool: 'Glob', args: () => ({ pattern: '../**' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Glob path ..', tool: 'Glob', args: () => ({ pattern: '**', path: '..' }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Glob path through a dir symlink',
    tool: 'Glob',
    args: () => ({ pattern: '**', path: 'dir-link' }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Glob ** does not descend symlinks', tool: 'Glob', args: () => ({ pattern: '**/secret.txt' }), outcome: 'confined' },
  { name: 'Grep path ..', tool: 'Grep', args: () => ({ pattern: 'SENTINEL', path: '..' }), outcome: 'PERMISSION_DENIED' },
  {
    name: 'Grep path through a dir symlink',
    tool: 'Grep',
    args: () => ({ pattern: 'SENTINEL', path: 'dir-link' }),
    outcome: 'PERMISSION_DENIED',
  },
  { name: 'Grep a file symlink', tool: 'Grep', args: () => ({ pattern: 'SENTINEL', path: 'file-link' }), outcome: 'PERMISSION_DENIED' },
  { name: 'Grep the root does not read through symlinks', tool: 'Grep', args: () => ({ pattern: 'SENTINEL' }), outcome: 'confined' },
  { name: 'Grep glob ../** only filters', tool: 'Grep', args: () => ({ pattern: 'SENTINEL', glob: '../**' }), outcome: 'confined' },
  { name: 'LS ..', tool: 'LS', args: () => ({ path: '..' }), outcome: 'PERMISSION_DENIED' },
  { name: 'LS a dir symlink', tool: 'LS', args: () => ({ path: 'dir-link' }), outcome: 'PERMISSION_DENIED' },
  { name: 'LS absolute path outside', tool: 'LS', args: (sb) => ({ path: sb.outside }), outcome: 'PERMISSION_DENIED' },
  { name: 'LS /', tool: 'LS', args: () => ({ path: '/' }), outcome: 'PERMISSION_DENIED' },
];

describe('path escapes: nothing outside the workspace is read or written', () => {
  let sb: Sandbox;
  let before: string;
  beforeAll(async () => {
    sb = await makeSandbox();
    await sb.put({ 'ok.txt': 'inside\n', 'a/keep.txt': '' });
    await sb.link(secret(sb), 'file-link');
    await sb.link(sb.outside, 'dir-link');
    await sb.link('chain-2', 'chain-1');
    await sb.link(secret(sb), 'chain-2');
    await sb.link('loop-b', 'loop-a');
    await sb.link('loop-a', 'loop-b');
    await sb.link(path.join(sb.outside, 'created-by-dangling.txt'), 'dangling');
    await sb.link(path.join(sb.outside, 'no-such-dir'), 'dangling-dir');
    await mkdir(path.join(sb.root, 'nested'));
    await symlink('../../outside', path.join(sb.root, 'nested', 'up-link'));
    before = await sb.outsideState();
  });
  afterAll(() => sb.cleanup());

  it('has a table of at least 20 attempts', () => {
    expect(attempts.length).toBeGreaterThanOrEqual(20);
  });

  it.each(attempts)('$name → $outcome', async ({ tool, args, outcome }) => {
    let output: ToolOutput | undefined;
    let error: unknown;
    try {
      output = await run(sb, tool, args(sb));
    } catch (err) {
      error = err;
    }
    if (outcome === 'confined') {
      expect(error).toBeUndefined();
      expect(output?.text).not.toContain(SENTINEL.trim());
      expect(output?.text).not.toMatch(/secret\.txt/);
    } else {
      expect(error).toMatchObject({ name: 'GatewayError', code: outcome });
    }
    expect(await sb.outsideState()).toBe(before);
  });
});
