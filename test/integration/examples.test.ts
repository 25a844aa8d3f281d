import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);

/**
 * The README's quick-start `/execute` example: the JSON body its curl command sends (single-quoted, so the shell
 * passes it as written) and, per call, the name, status and text of the answer printed under it.
 */
async function readmeExecuteExample(): Promise<{
  body: unknown;
  answers: Array<{ id: string; name: string; status: string; text: string }>;
}> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const example =
    /```sh\n(?:.*\n)*?curl -s localhost:8080\/execute -H 'content-type: application\/json' -d '([^']*)'\n```\n\n```json\n([\s\S]*?)```/.exec(
      readme,
    );
  if (!example) throw new Error('README.md has no curl example of /execute followed by its answer');
  const answers = [...example[2]!.matchAll(/\{"tool_call_id":"(\w+)","name":"(\w+)","status":"(\w+)","text":"((?:[^"\\]|\\.)*)"/g)].map(
    (m) => ({
      id: m[1]!,
      name: m[2]!,
      status: m[3]!,
      text: JSON.parse(`"${m[4]!}"`) as string,
    }),
  );
  return { body: JSON.parse(example[1]!), answers };
}

/**
 * The README's curl example, sent to a real listening gateway. The agent loops below send one call per model
 * turn; this example is a batch, a Write then a Read of the new file, which no loop covered when the Read of a
 * file created earlier in its batch answered NOT_FOUND.
 */
describe('README: the /execute example', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await buildTestApp();
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  it("the README's curl example of /execute answers as the README shows", async () => {
    const { body, answers } = await readmeExecuteExample();
    expect(answers.map((a) => a.name)).toEqual(['Write', 'Read']);
    const response = await fetch(`${url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: Array<Record<string, unknown>> };
    expect(results.map((r) => ({ id: r.tool_call_id, name: r.name, status: r.status, text: r.text }))).toEqual(answers);
  });
});

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
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/agent-loop.ts'], {
      env: { ...process.env, TOOLGATE_URL: url },
    });
    expect(stdout).toContain('LS -> success');
    expect(stdout).toContain('Edit -> success');
    expect(stdout).toContain('assistant: hello.md now greets toolgate.');
    expect(await readFile(join(t.workspace, 'hello.md'), 'utf8')).toBe('# Hello, toolgate\n');
  });

  it('TypeScript, OpenAI Responses format', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/responses-loop.ts'], {
      env: { ...process.env, TOOLGATE_URL: url },
    });
    expect(stdout).toContain('Write -> success');
    expect(stdout).toContain('Glob -> success');
    expect(stdout).toContain('Read -> success');
    expect(stdout).toContain('assistant: todo.md holds one item.');
    expect(await readFile(join(t.workspace, 'todo.md'), 'utf8')).toBe('- buy milk\n');
  });
});
