import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Logging (the rule: "log call id, name, args (redacted),
 * result hash, latency, and model identity"): the per-call log line names
 * the model that proposed the call — from a whole provider response's own
 * field, else the `x-model` header; absent when unknown; never a metric label.
 */
let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

const ls = (id: string) => ({ id, name: 'LS', arguments: '{}' });

async function modelLogged(body: unknown, headers: Record<string, string> = {}): Promise<unknown[]> {
  t.logs.length = 0;
  const response = await execute(t.app, body, headers);
  expect(response.status).toBe(200);
  const lines = t.logs.filter((l) => l.msg === 'tool call');
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((l) => (Object.hasOwn(l, 'model') ? l.model : '(absent)'));
}

describe('the model of a whole provider response', () => {
  it('an OpenAI chat completion: its `model`', async () => {
    const completion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4o-2024-08-06',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'LS', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    };
    expect(await modelLogged(completion)).toEqual(['gpt-4o-2024-08-06']);
  });

  it('an OpenAI Responses object: its `model`', async () => {
    const response = {
      id: 'resp_1',
      object: 'response',
      model: 'gpt-4.1-2025-04-14',
      output: [{ type: 'function_call', call_id: 'c1', name: 'LS', arguments: '{}' }],
    };
    expect(await modelLogged(response)).toEqual(['gpt-4.1-2025-04-14']);
  });

  it('an Anthropic message: its `model`', async () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'LS', input: {} }],
      stop_reason: 'tool_use',
    };
    expect(await modelLogged(message)).toEqual(['claude-sonnet-4-5-20250929']);
  });

  it('a Gemini response: its `modelVersion`, on every call of the batch', async () => {
    const response = {
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { name: 'LS', args: {} } }, { functionCall: { name: 'LS', args: {} } }] },
          finishReason: 'STOP',
        },
      ],
      modelVersion: 'gemini-2.5-flash',
    };
    expect(await modelLogged(response)).toEqual(['gemini-2.5-flash', 'gemini-2.5-flash']);
  });

  it('a value that is no plausible model name is left out, and the batch still runs', async () => {
    const message = {
      type: 'message',
      role: 'assistant',
      model: 'a model\nwith a newline',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'LS', input: {} }],
    };
    expect(await modelLogged(message)).toEqual(['(absent)']);
    expect(await modelLogged({ ...message, model: 'x'.repeat(129) })).toEqual(['(absent)']);
  });
});

describe('the x-model header', () => {
  it('names the model of a body that does not: a bare list, the tool_calls envelope, an assistant message', async () => {
    const headers = { 'x-model': 'meta-llama/Llama-3.1-8B-Instruct' };
    expect(await modelLogged([ls('a')], headers)).toEqual(['meta-llama/Llama-3.1-8B-Instruct']);
    expect(await modelLogged({ tool_calls: [ls('b')] }, headers)).toEqual(['meta-llama/Llama-3.1-8B-Instruct']);
    expect(
      await modelLogged(
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'LS', arguments: '{}' } }] },
        headers,
      ),
    ).toEqual(['meta-llama/Llama-3.1-8B-Instruct']);
  });

  it("the body's own record wins over the header: the provider says which model answered", async () => {
    const completion = {
      object: 'chat.completion',
      model: 'gpt-4o-2024-08-06',
      choices: [
        { message: { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'LS', arguments: '{}' } }] } },
      ],
    };
    expect(await modelLogged(completion, { 'x-model': 'gpt-4o' })).toEqual(['gpt-4o-2024-08-06']);
  });

  it('a malformed header is a 400 naming the rule, and nothing runs', async () => {
    for (const bad of ['x'.repeat(129), 'two words', '-leading-dash', '']) {
      t.logs.length = 0;
      const response = await execute(t.app, [ls('a')], { 'x-model': bad });
      expect(response.status, bad).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('x-model') });
      expect(t.logs.filter((l) => l.msg === 'tool call')).toEqual([]);
    }
  });
});

describe('absent when unknown, and never a metric label', () => {
  it('no model field in the line when neither the body nor a header names one; a `model` in the tool_calls envelope is not a provider response', async () => {
    expect(await modelLogged([ls('a')])).toEqual(['(absent)']);
    expect(await modelLogged({ tool_calls: [ls('b')], model: 'gpt-4o' })).toEqual(['(absent)']);
  });

  it('the metrics name no model (an unbounded label)', async () => {
    await modelLogged([ls('a')], { 'x-model': 'unbounded-model-name-7f3a' });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('toolgate_tool_calls_total');
    expect(metrics.body).not.toContain('unbounded-model-name-7f3a');
  });
});
