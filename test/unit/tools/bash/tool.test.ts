import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import type { SpillOutcome } from '../../../../src/spill/spill-store.js';
import type { Captured, RunOutcome } from '../../../../src/tools/bash/run.js';
import { chmodSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandEnv, emptyHome } from '../../../../src/tools/bash/env.js';
import { commandOutput, STDERR_MARKER } from '../../../../src/tools/bash/tool.js';
import { inspectTools } from '../../../../src/tools/index.js';
import { createHttpDispatchers } from '../../../../src/tools/http/index.js';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';

/** The Bash result shape (docs/bash.md), from a finished command's streams. */

const stream = (text: string, spilled?: SpillOutcome): Captured => ({
  head: Buffer.from(text),
  bytes: spilled?.bytes ?? Buffer.byteLength(text),
  spilled,
});
const outcome = (stdout: Captured, stderr: Captured, exitCode: number | null = 0, signal: string | null = null): RunOutcome => ({
  exitCode,
  signal,
  timedOut: false,
  stdout,
  stderr,
});
const record = (bytes: number): SpillOutcome => ({ id: 'abc', uri: 'file:///spill/abc', bytes, sha256: 'f'.repeat(64) }) as SpillOutcome;

describe('Bash results', () => {
  it('text is stdout, then stderr after its own line; no marker without stderr', () => {
    expect(commandOutput(outcome(stream('a\n'), stream('')), 100).text).toBe('a\n');
    expect(commandOutput(outcome(stream('a\n'), stream('b\n')), 100).text).toBe(`a\n${STDERR_MARKER}\nb\n`);
    expect(commandOutput(outcome(stream('no newline'), stream('b')), 100).text).toBe(`no newline\n${STDERR_MARKER}\nb`);
    expect(commandOutput(outcome(stream(''), stream('b\n')), 100).text).toBe(`${STDERR_MARKER}\nb\n`);
  });

  it('reads a stream in UTF-16 (a file PowerShell wrote, cat) as its text, with or without a byte-order mark, either order', () => {
    const utf16 = (text: string, order: 'le' | 'be') => {
      const bytes = Buffer.from(text, 'utf16le');
      return order === 'le' ? bytes : bytes.swap16();
    };
    const captured = (bytes: Buffer): Captured => ({ head: bytes, bytes: bytes.length });
    for (const order of ['le', 'be'] as const) {
      expect(commandOutput(outcome(captured(utf16('\ufeffTOKEN=abc\r\n', order)), stream('')), 100).text).toBe('TOKEN=abc\r\n');
      expect(commandOutput(outcome(captured(utf16('no mark\n', order)), stream('')), 100).text).toBe('no mark\n');
    }
    // Cut within the cap on a whole code unit.
    expect(commandOutput(outcome(captured(utf16('abcdef', 'le')), stream('')), 5).text).toBe('ab');
  });

  it('data is exactly {exit_code, signal, stdout_bytes, stderr_bytes}; exit 0 has no error', () => {
    const output = commandOutput(outcome(stream('héllo'), stream('')), 100);
    expect(output.data).toEqual({ exit_code: 0, signal: null, stdout_bytes: 6, stderr_bytes: 0 });
    expect(output.error).toBeUndefined();
    expect(output.partial).toBeUndefined();
  });

  it('a non-zero exit or a signal: COMMAND_FAILED, not retryable, the output kept', () => {
    const failed = commandOutput(outcome(stream(''), stream('nope\n'), 1), 100);
    expect(failed.text).toBe(`${STDERR_MARKER}\nnope\n`);
    expect(failed.error?.toCallError()).toMatchObject({ code: 'COMMAND_FAILED', retryable: false, message: 'The command exited with 1.' });
    const killed = commandOutput(outcome(stream(''), stream(''), null, 'SIGKILL'), 100);
    expect(killed.error?.message).toBe('The command was killed by SIGKILL.');
    expect(killed.data).toMatchObject({ exit_code: null, signal: 'SIGKILL' });
  });

  it('one stream, cut: the cap in text, never half a character, its spill the truncated record', () => {
    const spilled = record(5000);
    const output = commandOutput(outcome(stream('aé', spilled), stream('')), 2);
    expect(output.text).toBe('a');
    expect(output.partial).toBe(true);
    expect(output.spilled).toEqual({ originalBytes: 5000, record: spilled });
    expect(output.data).toMatchObject({ stdout_bytes: 5000 });
  });

  it('both streams, one cut: no truncated record (it would hold one stream only), a note where the cut one is whole', () => {
    const output = commandOutput(outcome(stream('x'.repeat(10), record(9000)), stream('err\n')), 4);
    expect(output.spilled).toBeUndefined();
    expect(output.partial).toBe(true);
    expect(output.text).toBe(`xxxx\n[stdout cut at 4 of 9000 bytes; the whole stream: /outputs/abc]\n${STDERR_MARKER}\nerr\n`);
  });

  it('a cut stream the spill store could not take says the rest was not kept', () => {
    const failure = { failed: true, bytes: 9000, sha256: 'f'.repeat(64) } as unknown as SpillOutcome;
    const output = commandOutput(outcome(stream('out\n'), stream('e'.repeat(10), failure)), 4);
    expect(output.text).toContain('[stderr cut at 4 of 9000 bytes; the rest was not kept (the spill store is unavailable)]');
  });

  it("the environment is built from scratch: PATH, HOME and its kin at the empty folder, LANG and the git settings, nothing of the gateway's", () => {
    const env = commandEnv('/srv/ws', '/tmp/empty');
    expect(env).toMatchObject({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp/empty', LANG: 'C.UTF-8' });
    expect(
      Object.keys(env)
        .filter((name) => !name.startsWith('GIT_'))
        .sort(),
    ).toEqual(['GNUPGHOME', 'HOME', 'LANG', 'PATH', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME']);
    for (const name of ['GNUPGHOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'])
      expect(env[name]).toBe('/tmp/empty');
    // git finds no repository above the workspace, and a status writes no index.
    expect(env).toMatchObject({ GIT_CEILING_DIRECTORIES: '/srv', GIT_OPTIONAL_LOCKS: '0', GIT_ATTR_NOSYSTEM: '1' });
  });

  it('emptyHome: an empty folder read-only to all, made anew when a command left something in it', () => {
    const home = emptyHome();
    const first = home();
    expect(readdirSync(first)).toEqual([]);
    expect(statSync(first).mode & 0o777).toBe(0o555);
    expect(home()).toBe(first);
    chmodSync(first, 0o755);
    writeFileSync(join(first, '.gitconfig'), '[core]\n');
    const second = home();
    expect(second).not.toBe(first);
    expect(readdirSync(second)).toEqual([]);
    rmSync(first, { recursive: true });
    rmSync(second, { recursive: true });
  });

  it('git reads no global or system config, and the program-running keys are set at command-line precedence', () => {
    const env = commandEnv('/ws', '/tmp/empty');
    expect(env).toMatchObject({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
    const count = Number(env.GIT_CONFIG_COUNT);
    const pairs = Object.fromEntries(Array.from({ length: count }, (_, i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]));
    expect(pairs).toMatchObject({
      'core.fsmonitor': 'false',
      'core.hooksPath': '/dev/null',
      'core.pager': 'cat',
      'credential.helper': '',
      'safe.bareRepository': 'explicit',
    });
    expect(Object.keys(pairs)).toHaveLength(count);
  });
});

describe('Bash configuration', () => {
  const dispatchers = createHttpDispatchers();
  const tools = (config: Record<string, unknown>) =>
    inspectTools(configFrom(config), { workspace: process.cwd(), credentials: createEnvCredentials({}), dispatchers });

  it('off by default: not served, yet a built-in that policy rules may name', () => {
    const set = tools({});
    expect(set.tools.map((t) => t.name)).not.toContain('Bash');
    expect(set.builtins.map((t) => t.name)).toContain('Bash');
    expect(set.bash).toBeUndefined();
  });

  it('defaults: sandbox auto, 1 MiB per stream, and limits on processes, file size, CPU time and open files', () => {
    expect(configFrom({}).builtins.Bash).toEqual({
      sandbox: 'auto',
      git_history: 'masked',
      output_cap_bytes: 1_048_576,
      limits: { processes: 128, file_size_bytes: 268_435_456, cpu_seconds: 60, open_files: 1024 },
    });
  });

  it('every bad setting is reported at once, and Bash-only settings on another built-in are refused', () => {
    expect(() =>
      configFrom({
        builtins: { Bash: { sandbox: 'maybe', output_cap_bytes: 0, limits: { cpu_seconds: -1, forks: 3 } }, Read: { sandbox: 'none' } },
      }),
    ).toThrow(
      /builtins\.Bash\.sandbox: must be one of "auto", "required", "none"[\s\S]*builtins\.Bash\.output_cap_bytes: must be >= 1[\s\S]*/,
    );
    try {
      configFrom({ builtins: { Bash: { limits: { cpu_seconds: -1, forks: 3 } }, Read: { sandbox: 'none' } } });
    } catch (err) {
      const problems = (err as { problems: string[] }).problems;
      expect(problems).toContain('builtins.Bash.limits.cpu_seconds: must be >= 1');
      expect(problems.some((p) => p.startsWith('builtins.Bash.limits: unknown setting "forks"'))).toBe(true);
      expect(problems.some((p) => p.startsWith('builtins.Read: unknown setting "sandbox"'))).toBe(true);
    }
  });
});
