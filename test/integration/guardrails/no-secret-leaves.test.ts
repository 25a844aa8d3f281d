import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { FAKE_SECRETS, NEAR_MISSES } from '../../helpers/fake-secrets.js';

/** No value of the fake-credential table reaches a client, in any format or path; the near misses come through whole. */

const SECRETS_TEXT = FAKE_SECRETS.map((f) => f.text).join('\n');
const NEAR_TEXT = NEAR_MISSES.join('\n');

function expectClean(body: string): void {
  for (const fake of FAKE_SECRETS) expect(body.includes(fake.secret), `${fake.kind} leaked`).toBe(false);
}

/** A tool that answers with every fake credential in its text, data and a streamed spill (split across chunks). */
const leaky: Tool = {
  name: 'leaky',
  description: 'Prints credentials.',
  parameters: { type: 'object', properties: {} },
  concurrencySafe: true,
  async run(_args, ctx) {
    const whole = Buffer.from(`${SECRETS_TEXT}\n${NEAR_TEXT}\n`);
    const record = await ctx.spill(
      (async function* () {
        for (let at = 0; at < whole.length; at += 7) yield whole.subarray(at, at + 7);
      })(),
    );
    return {
      text: SECRETS_TEXT,
      data: { env: { DB_PASSWORD: 'Tr0ub4dor&3x' }, lines: SECRETS_TEXT.split('\n') },
      partial: true,
      spilled: { originalBytes: record.bytes, record },
    };
  },
};

const bodies = {
  openai: { tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'Read', arguments: '{"path":"leak.env"}' } }] },
  anthropic: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'Read', input: { path: 'leak.env' } }] },
  responses: [
    { type: 'function_call', id: 'fc_1', call_id: 'call_r', name: 'Read', arguments: '{"path":"leak.env"}', status: 'completed' },
  ],
  gemini: { role: 'model', parts: [{ functionCall: { id: 'g_a', name: 'Read', args: { path: 'leak.env' } } }] },
};

describe('guardrails on every path out of the gateway', () => {
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    t = await buildTestApp({ tools: [leaky], config: { guardrails: { tools: { 'unguarded_*': { secrets: 'off' } } } } });
    await writeFile(join(t.workspace, 'leak.env'), `${SECRETS_TEXT}\n${NEAR_TEXT}\n`);
    // Over the call budget (50 KB): the budget spills the whole text.
    await writeFile(join(t.workspace, 'big.log'), `${`${'x'.repeat(200)}\n`.repeat(300)}${SECRETS_TEXT}\n`);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    client = new Client({ name: 'guardrails-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', address)));
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it.each(Object.entries(bodies))(
    '%s: results and messages hold markers, never a credential, the near misses whole, with one note line, data.redactions, a metric and a log count',
    async (format, body) => {
      const { status, body: answer } = await execute(t.app, body);
      expect(status).toBe(200);
      const json = JSON.stringify(answer);
      expectClean(json);
      for (const near of NEAR_MISSES) expect(answer.results[0].text).toContain(near.split('\n')[0]!.slice(0, 40));
      expect(answer.results[0].text.split('\n')[0]).toMatch(
        /^\[\d+ values that looked like credentials \(.*\) were redacted before this output reached you/,
      );
      expect(answer.results[0].data.redactions).toMatchObject({ github_token: 3, password: 4, private_key: 4 });
      expect(json).toContain('[REDACTED:aws_access_key_id]');
      expect(format).toBeTruthy();
    },
  );

  it('counts redactions in toolgate_redactions_total and on the log line, never a value', async () => {
    await execute(t.app, bodies.openai);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/toolgate_redactions_total\{tool="Read",kind="github_token"\} \d+/);
    const line = t.logs.findLast((l) => l.msg === 'tool call' && l.tool === 'Read')!;
    expect(line.redactions).toMatchObject({ github_token: 3 });
    expectClean(JSON.stringify(t.logs));
  });

  it('/mcp tools/call answers hold no credential', async () => {
    const result = await client.callTool({ name: 'Read', arguments: { path: 'leak.env' } });
    const text = JSON.stringify(result);
    expectClean(text);
    expect(text).toContain('[REDACTED:private_key]');
  });

  it('a spilled copy, by the budget or streamed by the tool across chunk boundaries, is served by /outputs without a credential', async () => {
    for (const body of [
      { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"path":"big.log","limit":2000}' } }] },
      { tool_calls: [{ id: 'c2', type: 'function', function: { name: 'leaky', arguments: '{}' } }] },
    ]) {
      const { body: answer } = await execute(t.app, body);
      const result = answer.results[0];
      expectClean(JSON.stringify(answer));
      expect(result.truncated.url).toMatch(/^\/outputs\//);
      const whole = await t.app.inject({ method: 'GET', url: result.truncated.url });
      expect(whole.statusCode).toBe(200);
      expectClean(whole.body);
      expect(whole.body).toContain('[REDACTED:anthropic_api_key]');
    }
  });

  it('with guardrails.secrets off for a tool, its output passes as it is', async () => {
    const off = await buildTestApp({
      tools: [{ ...leaky, name: 'unguarded_leaky' }],
      config: { guardrails: { tools: { 'unguarded_*': { secrets: 'off' } } } },
    });
    const { body } = await execute(off.app, {
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'unguarded_leaky', arguments: '{}' } }],
    });
    expect(body.results[0].text).toContain(FAKE_SECRETS[0]!.secret);
    expect(body.results[0].data.redactions).toBeUndefined();
    await off.close();
    const allOff = await buildTestApp({ config: { guardrails: { secrets: 'off' } } });
    await writeFile(join(allOff.workspace, 'leak.env'), `${SECRETS_TEXT}\n`);
    const read = await execute(allOff.app, bodies.openai);
    expect(JSON.stringify(read.body)).toContain(FAKE_SECRETS[0]!.secret);
    await allOff.close();
  });
});
