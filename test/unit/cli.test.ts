import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { keyProblems } from '../../src/config/load.js';
import { buildTestApp } from '../helpers/app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The key on its own line, and the YAML entry after the last blank line. */
function printed(stdout: string): { key: string; entryText: string } {
  const key = /^ {2}(tg_[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1];
  if (!key) throw new Error(`no key in:\n${stdout}`);
  return { key, entryText: stdout.slice(stdout.lastIndexOf('\n\n') + 2) };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** `toolgate keys create` prints a new key once and the entry that stores only its hash. */
// Each case starts a process, which under a loaded test run can take many seconds; they run side by side.
describe.concurrent('toolgate keys create', { timeout: 150_000 }, () => {
  it("prints a key whose sha256 is the entry's, in an entry that pastes under keys: and works", async () => {
    const { code, stdout, stderr } = await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'execute,admin', '--id', 'acme-agents');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { key, entryText } = printed(stdout);
    expect(stdout.split(key)).toHaveLength(2);

    const config = parse(`keys:\n${entryText}`) as { keys: Array<Record<string, unknown>> };
    expect(config.keys).toEqual([{ id: 'acme-agents', sha256: sha256(key), tenant: 'acme', scopes: ['execute', 'admin'] }]);
    expect(keyProblems(config.keys[0])).toEqual([]);
    // A keys_file holds the same entry as a bare list.
    expect(parse(entryText)).toEqual(config.keys);

    const t = await buildTestApp({ config: { keys: config.keys } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/circuits', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('--scopes execute,on_behalf makes a key that may name the user a request is for', async () => {
    const { code, stdout } = await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'execute,on_behalf', '--id', 'backend');
    expect(code).toBe(0);
    const [entry] = parse(printed(stdout).entryText) as Array<Record<string, unknown>>;
    expect(entry).toMatchObject({ id: 'backend', scopes: ['execute', 'on_behalf'] });
    expect(keyProblems(entry)).toEqual([]);
  });

  it('a generated id is valid even for the longest tenant, --tools lands in the entry, and a number-like tenant stays a string', async () => {
    const tenant = '0'.repeat(64);
    const [first, second] = await Promise.all([
      cli('keys', 'create', '--tenant', tenant, '--tools', 'Read,get_*'),
      cli('keys', 'create', '--tenant', 'acme'),
    ]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const { key, entryText } = printed(first.stdout);
    const [entry] = parse(entryText) as Array<Record<string, unknown>>;
    expect(entry).toEqual({
      id: expect.stringMatching(/^0{57}-[0-9a-f]{6}$/),
      sha256: sha256(key),
      tenant,
      scopes: ['execute'],
      tools: ['Read', 'get_*'],
    });
    expect(keyProblems(entry)).toEqual([]);
    expect(printed(second.stdout).key).not.toBe(key);
  });

  it.each([
    [['keys', 'create'], /--tenant is required/],
    [['keys', 'create', '--tenant', 'acme', '--scopes', 'execute,execute'], /scopes: must NOT have duplicate items/],
    [['keys', 'create', '--tenant', 'acme', '--tools', 'Read,,LS'], /tools\.1: must NOT have fewer than 1 characters/],
    [['keys', 'create', '--tenant', 'acme', '--bogus'], /Unknown option '--bogus'/],
    [['keys'], /usage:/],
  ])('%j exits non-zero with a message and prints no key', async (args, message) => {
    const { code, stdout, stderr } = await cli(...args);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(message);
    expect(stdout).not.toMatch(/tg_/);
  });
});

/** `toolgate worker` is a subcommand; its options are checked before anything starts. */
describe.concurrent('toolgate worker', { timeout: 150_000 }, () => {
  it('is in the usage', async () => {
    const { code, stderr } = await cli('help');
    expect(code).toBe(0);
    expect(stderr).toMatch(/toolgate worker \[--concurrency N\]/);
  });

  it.each([
    [['worker', '--concurrency', '0'], /--concurrency must be a whole number from 1 to 256/],
    [['worker', '--concurrency', 'many'], /--concurrency must be a whole number from 1 to 256/],
    [['worker', '--queues', 'x'], /Unknown option '--queues'/],
  ])('%j exits 2 with a message', async (args, message) => {
    const { code, stderr } = await cli(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
