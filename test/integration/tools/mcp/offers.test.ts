import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { EVERYTHING_SERVER, sdkClients, waitFor } from '../../../helpers/mcp.js';

/**
 * Resources, resource templates and prompts of upstream servers on /mcp (docs/mcp.md, "Resources and prompts"): server-everything and a
 * small SDK server of our own (test/helpers/mcp-offers-server.mjs) behind a real gateway, the SDK's client on /mcp, with keys, a policy
 * rule and the output guardrails in force.
 */

const OFFERS_SERVER = fileURLToPath(new URL('../../../helpers/mcp-offers-server.mjs', import.meta.url));
const SECRET = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
const key = (id: string, tenant: string, tools?: string[]) => ({
  id,
  sha256: createHash('sha256').update(`${id}-key`).digest('hex'),
  tenant,
  scopes: ['execute'],
  ...(tools && { tools }),
});

let t: TestApp;
let url: URL;
const clients = sdkClients(() => url);

beforeAll(async () => {
  t = await buildTestApp({
    config: {
      keys: [key('all', 'acme'), key('echo', 'acme', ['ev_echo']), key('other', 'globex')],
      policy: { rules: [{ tool: 'of_resources', when: { uri: '^of\\+mem://private/' }, decision: 'deny' }] },
      mcp_servers: [
        { name: 'ev', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], prefix: 'ev_', connect_timeout_ms: 20_000 },
        {
          name: 'of',
          command: process.execPath,
          args: [OFFERS_SERVER],
          env: { OFFERS_SECRET: SECRET, OFFERS_BIG_BYTES: '80000' },
          prefix: 'of_',
          connect_timeout_ms: 20_000,
        },
      ],
    },
  });
  url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
}, 30_000);
afterEach(() => clients.close());
afterAll(() => t.close());

const client = (id = 'all') => clients.connect({ headers: { authorization: `Bearer ${id}-key` } });

async function rpcErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

describe('resources, templates and prompts of upstream servers on /mcp', () => {
  it('initialize declares resources, prompts and completions', async () => {
    const c = await client();
    expect(c.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {}, completions: {} });
  });

  it("server-everything's resources, templates and prompts are listed, under its name and prefix", async () => {
    const c = await client();
    const resources = (await c.listResources()).resources;
    const ev = resources.filter((r) => r.uri.startsWith('ev+'));
    expect(ev.length).toBeGreaterThanOrEqual(7);
    expect(ev.every((r) => r.uri.startsWith('ev+demo://resource/static/') && r.name.startsWith('ev_'))).toBe(true);
    const templates = (await c.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining(['ev+demo://resource/dynamic/text/{resourceId}', 'ev+demo://resource/dynamic/blob/{resourceId}']),
    );
    const prompts = (await c.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(['ev_simple-prompt', 'ev_args-prompt', 'ev_completable-prompt', 'ev_resource-prompt']));
  });

  it('a listed resource and a templated one read as they do upstream, under the gateway URI', async () => {
    const c = await client();
    const listed = (await c.listResources()).resources.find((r) => r.uri.startsWith('ev+demo://resource/static/'))!;
    const read = await c.readResource({ uri: listed.uri });
    expect(read.contents[0]).toMatchObject({ uri: listed.uri });
    expect((read.contents[0] as { text?: string }).text!.length).toBeGreaterThan(0);
    const templated = await c.readResource({ uri: 'ev+demo://resource/dynamic/text/3' });
    expect(templated.contents[0]).toMatchObject({ uri: 'ev+demo://resource/dynamic/text/3', mimeType: 'text/plain' });
    expect((templated.contents[0] as { text: string }).text).toContain('Resource 3: This is a plaintext resource');
  });

  it('a resource a prompt embeds is named by its gateway URI, and reads through the gateway', async () => {
    const c = await client();
    const got = await c.getPrompt({ name: 'ev_resource-prompt', arguments: { resourceType: 'Text', resourceId: '2' } });
    const embedded = got.messages.map((m) => m.content).find((content) => content.type === 'resource') as { resource: { uri: string } };
    expect(embedded.resource.uri).toBe('ev+demo://resource/dynamic/text/2');
    const read = await c.readResource({ uri: embedded.resource.uri });
    expect((read.contents[0] as { text: string }).text).toContain('Resource 2');
  });

  it('prompts are got with their arguments, and completion/complete completes them', async () => {
    const c = await client();
    const got = await c.getPrompt({ name: 'ev_args-prompt', arguments: { city: 'Lisbon', state: 'Portugal' } });
    expect(JSON.stringify(got.messages)).toContain('Lisbon');
    const completion = await c.complete({
      ref: { type: 'ref/prompt', name: 'ev_completable-prompt' },
      argument: { name: 'department', value: 'Eng' },
    });
    expect(completion.completion.values).toContain('Engineering');
  });

  it('a credential in a resource is redacted before it leaves the gateway; so is one in a prompt', async () => {
    const c = await client();
    const read = await c.readResource({ uri: 'of+mem://notes/config.txt' });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).not.toContain(SECRET);
    expect(text).toContain('[REDACTED:');
    expect(text).toContain('region = eu');
    const got = await c.getPrompt({ name: 'ev_args-prompt', arguments: { city: SECRET } });
    expect(JSON.stringify(got)).not.toContain(SECRET);
  });

  it('a credential in what an upstream asks the client during a call is redacted before the client sees it', async () => {
    const c = await clients.connect({ capabilities: { elicitation: {} }, headers: { authorization: 'Bearer all-key' } });
    const asked: string[] = [];
    c.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { ok: true } };
    });
    const result = await c.callTool({ name: 'of_ask_secret', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('answered accept');
    expect(asked).toHaveLength(1);
    expect(asked[0]).not.toContain(SECRET);
    expect(asked[0]).toContain('[REDACTED:');
  });

  it('a resource over the per-call budget is cut, its whole text spilled and retrievable by its tenant only', async () => {
    const c = await client();
    const read = await c.readResource({ uri: 'of+mem://notes/big.log' });
    const item = read.contents[0] as { text: string; _meta: Record<string, { url: string; original_bytes: number }> };
    expect(Buffer.byteLength(item.text)).toBeLessThanOrEqual(51_200);
    const record = item._meta['toolgate/truncated']!;
    expect(record.original_bytes).toBeGreaterThanOrEqual(80_000);
    expect(item.text).toContain(`GET ${record.url}`);
    const whole = await t.app.inject({ method: 'GET', url: record.url, headers: { authorization: 'Bearer all-key' } });
    expect(whole.statusCode).toBe(200);
    expect(whole.body.length).toBe(record.original_bytes);
    const elsewhere = await t.app.inject({ method: 'GET', url: record.url, headers: { authorization: 'Bearer other-key' } });
    expect(elsewhere.statusCode).toBe(404);
  });

  it('a policy rule on prefix + "resources" denies a resource URI: left out of the listing, and its read refused', async () => {
    const c = await client();
    const uris = (await c.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain('of+mem://notes/config.txt');
    expect(uris).not.toContain('of+mem://private/plan.txt');
    const err = await rpcErrorOf(c.readResource({ uri: 'of+mem://private/plan.txt' }));
    expect(err.message).toContain('does not let this caller reach the resource');
  });

  it("a key without the server's resources or a prompt's name sees none of them and reads nothing", async () => {
    const c = await client('echo');
    expect((await c.listResources()).resources).toEqual([]);
    expect((await c.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await c.listPrompts()).prompts).toEqual([]);
    const err = await rpcErrorOf(c.readResource({ uri: 'ev+demo://resource/dynamic/text/3' }));
    expect(err.code).toBe(-32002);
    await rpcErrorOf(c.getPrompt({ name: 'ev_simple-prompt' }));
    await rpcErrorOf(
      c.complete({ ref: { type: 'ref/prompt', name: 'ev_completable-prompt' }, argument: { name: 'department', value: 'E' } }),
    );
  });

  it('an upstream that adds a resource (notifications/resources/list_changed) is listed again without a restart', async () => {
    const c = await client();
    await c.callTool({ name: 'of_add_resource', arguments: {} });
    await waitFor(async () => (await c.listResources()).resources.some((r) => r.uri === 'of+mem://notes/added.txt'), 'the added resource');
    const read = await c.readResource({ uri: 'of+mem://notes/added.txt' });
    expect((read.contents[0] as { text: string }).text).toBe('added later');
  });
});

describe('the same over REST: GET /resources, GET /resources/read, GET /prompts, POST /prompts/{name}', () => {
  const as = (id: string) => ({ authorization: `Bearer ${id}-key` });

  it('lists what /mcp lists for the key, and reads and gets the same way', async () => {
    const listed = await t.app.inject({ method: 'GET', url: '/resources', headers: as('all') });
    expect(listed.statusCode).toBe(200);
    const body = listed.json() as { resources: Array<{ uri: string }>; resource_templates: Array<{ uriTemplate: string }> };
    expect(body.resources.map((r) => r.uri)).toContain('of+mem://notes/config.txt');
    expect(body.resources.map((r) => r.uri)).not.toContain('of+mem://private/plan.txt');
    expect(body.resource_templates.map((r) => r.uriTemplate)).toContain('ev+demo://resource/dynamic/text/{resourceId}');
    const read = await t.app.inject({
      method: 'GET',
      url: `/resources/read?uri=${encodeURIComponent('of+mem://notes/config.txt')}`,
      headers: as('all'),
    });
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(SECRET);
    expect(read.json().contents[0]).toMatchObject({ uri: 'of+mem://notes/config.txt', mimeType: 'text/plain' });
    const prompts = await t.app.inject({ method: 'GET', url: '/prompts', headers: as('all') });
    expect(prompts.json().prompts.map((p: { name: string }) => p.name)).toContain('ev_args-prompt');
    const got = await t.app.inject({
      method: 'POST',
      url: '/prompts/ev_args-prompt',
      headers: as('all'),
      payload: { arguments: { city: 'Lisbon' } },
    });
    expect(got.statusCode).toBe(200);
    expect(JSON.stringify(got.json().messages)).toContain('Lisbon');
  });

  it('a denied URI is 403 PERMISSION_DENIED; what the key cannot reach is 404, like what does not exist', async () => {
    const denied = await t.app.inject({
      method: 'GET',
      url: `/resources/read?uri=${encodeURIComponent('of+mem://private/plan.txt')}`,
      headers: as('all'),
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('PERMISSION_DENIED');
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/resources/read?uri=${encodeURIComponent('of+mem://notes/config.txt')}`,
      headers: as('echo'),
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.body).not.toContain('region');
    const prompt = await t.app.inject({ method: 'POST', url: '/prompts/ev_simple-prompt', headers: as('echo'), payload: {} });
    expect(prompt.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/resources', headers: as('echo') })).json()).toEqual({
      resources: [],
      resource_templates: [],
    });
  });
});

describe('what an upstream refuses', () => {
  it("a resource the server does not have: the server's own error code on /mcp, 502 UPSTREAM_ERROR over REST", async () => {
    const c = await client();
    const err = await rpcErrorOf(c.readResource({ uri: 'of+mem://notes/none.txt' }));
    expect(err.code).toBe(-32602);
    expect(err.data).toMatchObject({ code: 'UPSTREAM_ERROR', details: { server: 'of', reason: 'rejected' } });
    const rest = await t.app.inject({
      method: 'GET',
      url: `/resources/read?uri=${encodeURIComponent('of+mem://notes/none.txt')}`,
      headers: { authorization: 'Bearer all-key' },
    });
    expect(rest.statusCode).toBe(502);
    expect(rest.json().error).toMatchObject({ code: 'UPSTREAM_ERROR', details: { server: 'of', rpc_code: -32602 } });
  });
});
