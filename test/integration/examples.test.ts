import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);

/** The README's agent loops must keep working against a real listening gateway. */
describe('examples/ agent loops', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await buildTestApp();
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  it('Python (standard library only), OpenAI format', async () => {
    const { stdout } = await run('python3', ['examples/agent_loop.py'], { env: { ...process.env, TOOLGATE_URL: url } });
    expect(stdout).toContain('Write -> success');
    expect(stdout).toContain('Read -> success');
    expect(stdout).toContain('Grep -> success');
    expect(stdout).toContain('assistant: Your list has 2 items');
    expect(await readFile(join(t.workspace, 'notes/todo.txt'), 'utf8')).toBe('buy milk\nwrite tests\n');
  });

  it('TypeScript, Anthropic format', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/agent-loop.ts'], { env: { ...process.env, TOOLGATE_URL: url } });
    expect(stdout).toContain('LS -> success');
    expect(stdout).toContain('Edit -> success');
    expect(stdout).toContain('assistant: hello.md now greets toolgate.');
    expect(await readFile(join(t.workspace, 'hello.md'), 'utf8')).toBe('# Hello, toolgate\n');
  });

  it('TypeScript, OpenAI Responses format', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/responses-loop.ts'], { env: { ...process.env, TOOLGATE_URL: url } });
    expect(stdout).toContain('Write -> success');
    expect(stdout).toContain('Glob -> success');
    expect(stdout).toContain('Read -> success');
    expect(stdout).toContain('assistant: todo.md holds one item.');
    expect(await readFile(join(t.workspace, 'todo.md'), 'utf8')).toBe('- buy milk\n');
  });
});
