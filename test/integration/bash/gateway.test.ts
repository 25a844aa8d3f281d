import { describe, expect, it } from 'vitest';
import { execute, type TestApp } from '../../helpers/app.js';
import { callApproving, gatewayPerTest } from './helpers.js';

/**
 * The Bash tool (docs/bash.md) through the whole gateway: Bash is off unless enabled, GET
 * /tools/Bash says which sandbox is in force, a non-zero exit is
 * COMMAND_FAILED with the output and never trips the breaker, a command
 * past its timeout_ms is TIMEOUT, and a stream over its cap is fetchable
 * whole from /outputs/{id}.
 */

const suite = gatewayPerTest();

const gateway = (bash: Record<string, unknown> = { enabled: true, sandbox: 'required' }, extra: Record<string, unknown> = {}) =>
  suite.start({ builtins: { Bash: bash }, ...extra });

/** One Bash call, approved when the classifier puts the command in ASK. */
const bash = async (app: TestApp['app'], args: Record<string, unknown>) => (await callApproving(app, 'Bash', args)).body;

describe('Bash is off unless the config enables it', () => {
  it('a fresh configuration serves no shell: not listed, and a call is UNKNOWN_TOOL', async () => {
    const app = await suite.start();
    const names = (await app.inject({ method: 'GET', url: '/tools' })).json().tools.map((tool: any) => tool.function.name);
    expect(names).not.toContain('Bash');
    const { body } = await execute(app, [{ id: 'x', name: 'Bash', arguments: { command: 'true' } }]);
    expect(body.results[0].error.code).toBe('UNKNOWN_TOOL');
  });

  it('enabled: GET /tools/Bash shows the sandbox in force, not concurrency-safe, command and timeout_ms', async () => {
    const app = await gateway();
    const tool = (await app.inject({ method: 'GET', url: '/tools/Bash' })).json();
    expect(tool['x-toolgate']).toMatchObject({ sandbox: { mode: 'bwrap', setting: 'required' }, concurrency_safe: false });
    expect(tool.description).toContain('no network');
    expect(tool.parameters.required).toEqual(['command']);
    expect(Object.keys(tool.parameters.properties).sort()).toEqual(['command', 'timeout_ms']);
  });

  it('sandbox: none shows mode none, and the description promises no sandbox', async () => {
    const app = await gateway({ enabled: true, sandbox: 'none' });
    const tool = (await app.inject({ method: 'GET', url: '/tools/Bash' })).json();
    expect(tool['x-toolgate'].sandbox).toEqual({ mode: 'none', setting: 'none' });
    // The model is not told of a sandbox that is not there.
    expect(tool.description).not.toMatch(/sandbox|network/);
  });
});

describe('Bash results through the pipeline', () => {
  it('a command with a NUL character is INVALID_ARGS, never run', async () => {
    const app = await gateway();
    const { body } = await execute(app, [{ id: 'nul', name: 'Bash', arguments: { command: 'echo a\u0000b' } }]);
    expect(body.results[0].error).toMatchObject({
      code: 'INVALID_ARGS',
      details: { errors: [expect.objectContaining({ path: '/command' })] },
    });
  });

  it('exit 0: success, text = stdout, data = {exit_code, signal, stdout_bytes, stderr_bytes}', async () => {
    const app = await gateway();
    const body = await bash(app, { command: 'echo hello' });
    expect(body.results[0]).toMatchObject({
      status: 'success',
      text: 'hello\n',
      data: { exit_code: 0, signal: null, stdout_bytes: 6, stderr_bytes: 0 },
    });
    expect(body.results[0].error).toBeUndefined();
  });

  it('non-zero exit: status error, COMMAND_FAILED (not retryable) with the same text and data, in the tool message too', async () => {
    const app = await gateway();
    const body = await bash(app, { command: 'ls no-such-file' });
    const result = body.results[0];
    expect(result).toMatchObject({
      status: 'error',
      error: { code: 'COMMAND_FAILED', retryable: false },
      data: { exit_code: 2, stdout_bytes: 0 },
    });
    expect(result.text).toMatch(/^--- stderr ---\nls: cannot access 'no-such-file': No such file or directory\n$/);
    const content = JSON.parse(body.messages[0].content);
    expect(content).toMatchObject({ status: 'error', text: result.text, data: result.data, error: { code: 'COMMAND_FAILED' } });
  });

  it('COMMAND_FAILED never counts for the breaker: the circuit stays closed after many', async () => {
    const app = await gateway();
    for (let i = 0; i < 4; i++) expect((await bash(app, { command: `ls missing-${i}` })).results[0].error.code).toBe('COMMAND_FAILED');
    const circuits = (await app.inject({ method: 'GET', url: '/circuits' })).json().circuits;
    expect(circuits.find((c: any) => c.tool === 'Bash')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('timeout_ms lowers the timeout: TIMEOUT, retryable', async () => {
    const app = await gateway();
    const body = await bash(app, { command: 'sleep 5', timeout_ms: 300 });
    expect(body.results[0]).toMatchObject({ status: 'error', error: { code: 'TIMEOUT', retryable: true } });
    expect(body.results[0].stats.time_ms).toBeLessThan(4_000);
  });

  it("timeout_ms never raises the timeout: a call asking for more than the tool's is still killed at the tool's", async () => {
    const app = await gateway({ enabled: true, sandbox: 'required', timeout_ms: 400 });
    const body = await bash(app, { command: 'sleep 5', timeout_ms: 60_000 });
    expect(body.results[0]).toMatchObject({ status: 'error', error: { code: 'TIMEOUT', retryable: true } });
    expect(body.results[0].stats.time_ms).toBeLessThan(4_000);
  });

  it("a timeout the call's timeout_ms set is not counted by the breaker; one at the tool's own timeout is", async () => {
    const app = await gateway({ enabled: true, sandbox: 'required', timeout_ms: 400 });
    const circuit = async () => (await app.inject({ method: 'GET', url: '/circuits' })).json().circuits.find((c: any) => c.tool === 'Bash');
    expect((await bash(app, { command: 'sleep 5', timeout_ms: 200 })).results[0].error.code).toBe('TIMEOUT');
    expect(await circuit()).toMatchObject({ state: 'closed', failures: 0 });
    expect((await bash(app, { command: 'sleep 6' })).results[0].error.code).toBe('TIMEOUT');
    expect(await circuit()).toMatchObject({ state: 'closed', failures: 1 });
  });

  it('a stream over the output cap: the result points at /outputs/{id}, which serves the whole stream', async () => {
    const app = await gateway({ enabled: true, sandbox: 'required', output_cap_bytes: 65_536 });
    const body = await bash(app, { command: 'seq 1 100000' });
    const result = body.results[0];
    const whole = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join('');
    expect(result.status).toBe('partial');
    expect(result.truncated).toMatchObject({ original_bytes: whole.length });
    expect(result.data.stdout_bytes).toBe(whole.length);
    const served = await app.inject({ method: 'GET', url: result.truncated.url });
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe(whole);
  });
});
