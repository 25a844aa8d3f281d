import { CreateMessageRequestSchema, ElicitRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { EVERYTHING_SERVER, sdkClients, waitFor } from '../../../helpers/mcp.js';

/**
 * What the gateway's upstream client declares, and honours (docs/mcp.md, "What an upstream may ask"): server-everything behind a real
 * gateway, the SDK's client on /mcp. Its elicitation and sampling requests reach the /mcp client that made the call when it declared the
 * capability, and are refused at once otherwise; roots/list is answered from the config; a tool that requires tasks is not listed.
 */

let t: TestApp;
let url: URL;
const clients = sdkClients(() => url);

beforeAll(async () => {
  t = await buildTestApp({
    config: {
      mcp_servers: [
        {
          name: 'ev',
          command: process.execPath,
          args: [EVERYTHING_SERVER, 'stdio'],
          prefix: 'ev_',
          roots: [{ uri: 'file:///srv/data', name: 'data' }],
          connect_timeout_ms: 20_000,
        },
      ],
    },
  });
  url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
  // The tools that need a client capability are registered once the upstream has seen ours, then announced with list_changed.
  const listed = async () => (await t.app.inject({ method: 'GET', url: '/tools' })).body;
  await waitFor(async () => (await listed()).includes('ev_trigger-elicitation-request'), 'the conditional tools');
}, 30_000);
afterEach(() => clients.close());
afterAll(() => t.close());

const client = (capabilities: ClientCapabilities = {}) => clients.connect({ capabilities });

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');

describe('an upstream asks the /mcp client of the call', () => {
  it('the tools that need elicitation, sampling or roots are listed; the one that requires task-based execution is not', async () => {
    const names = (await (await client()).listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'ev_trigger-elicitation-request',
        'ev_trigger-sampling-request',
        'ev_get-roots-list',
        'ev_trigger-url-elicitation',
      ]),
    );
    expect(names).not.toContain('ev_simulate-research-query');
  });

  it('elicitation/create reaches a client that declared elicitation, and its answer reaches the upstream', async () => {
    const c = await client({ elicitation: { form: {} } });
    const asked: unknown[] = [];
    c.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
    });
    const result = await c.callTool({ name: 'ev_trigger-elicitation-request', arguments: {} });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: 'Please provide inputs for the following fields:' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('- Name: Ada Lovelace');
  });

  it('a client that did not declare elicitation is not asked: the upstream gets a JSON-RPC error at once and the call fails clearly', async () => {
    const c = await client();
    const started = Date.now();
    const result = await c.callTool({ name: 'ev_trigger-elicitation-request', arguments: {} });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('did not declare the elicitation (form mode) capability');
  });

  it("with another call of the server in flight, the request is refused: no caller is asked about another's call", async () => {
    const slow = execute(t.app, [{ id: 's1', name: 'ev_trigger-long-running-operation', arguments: { duration: 2, steps: 2 } }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const c = await client({ elicitation: { form: {} } });
    let asked = 0;
    c.setRequestHandler(ElicitRequestSchema, () => {
      asked++;
      return { action: 'decline' };
    });
    const result = await c.callTool({ name: 'ev_trigger-elicitation-request', arguments: {} });
    expect(asked).toBe(0);
    expect(textOf(result)).toContain('several calls of this server are in flight');
    expect((await slow).body.results[0].status).toBe('success');
  });

  it('a REST call has no client to ask: refused at once', async () => {
    const { body } = await execute(t.app, [{ id: 'e1', name: 'ev_trigger-elicitation-request', arguments: {} }]);
    expect(body.results[0].status).toBe('error');
    expect(JSON.stringify(body.results[0])).toContain('cannot relay elicitation/create');
  });

  it('sampling/createMessage reaches a client that declared sampling, and its message reaches the upstream', async () => {
    const c = await client({ sampling: {} });
    const asked: unknown[] = [];
    c.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'sampled by the client' }, model: 'test-model' };
    });
    const result = await c.callTool({ name: 'ev_trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 10 } });
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0])).toContain('hello');
    expect(textOf(result)).toContain('sampled by the client');
  });

  it('a client that declared only sampling is not asked for an elicitation', async () => {
    const c = await client({ sampling: {} });
    const result = await c.callTool({ name: 'ev_trigger-elicitation-request', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('did not declare the elicitation (form mode) capability');
  });

  it('roots/list is answered from mcp_servers[].roots', async () => {
    const c = await client();
    const result = await c.callTool({ name: 'ev_get-roots-list', arguments: {} });
    expect(textOf(result)).toContain('file:///srv/data');
  });
});
