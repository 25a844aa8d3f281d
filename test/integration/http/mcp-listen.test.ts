import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS_PER_KEY } from '../../../src/http/mcp-listen.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { fixtureServer, sdkClients, waitFor } from '../../helpers/mcp.js';

/**
 * GET /mcp (docs/mcp.md, "List changes"): the server-to-client stream on which a client hears that the tools, resources or prompts IT may
 * list changed, with real upstream servers whose lists change at run time, the SDK's client on /mcp, and a shutdown that never waits on an
 * open stream.
 */

const OFFERS_SERVER = fileURLToPath(new URL('../../helpers/mcp-offers-server.mjs', import.meta.url));
const key = (id: string, tools?: string[]) => ({
  id,
  sha256: createHash('sha256').update(`${id}-key`).digest('hex'),
  tenant: 'acme',
  scopes: ['execute'],
  ...(tools && { tools }),
});
const bearer = (id: string) => ({ authorization: `Bearer ${id}-key` });

async function gateway(dir: string): Promise<{ t: TestApp; url: URL }> {
  const t = await buildTestApp({
    config: {
      keys: [key('all'), key('offers', ['of_*']), key('bound'), key('ending')],
      mcp_servers: [
        fixtureServer(join(dir, 'fx.log')),
        {
          name: 'of',
          command: process.execPath,
          args: [OFFERS_SERVER],
          env: { OFFERS_SECRET: 'x', OFFERS_BIG_BYTES: '10' },
          prefix: 'of_',
        },
      ],
    },
  });
  return { t, url: new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 })) };
}

/** Opens a session with a raw initialize, then GET /mcp as a raw fetch stream. */
async function rawStream(url: URL, id: string, sessionId?: string) {
  let session = sessionId;
  if (session === undefined) {
    const init = await fetch(url, {
      method: 'POST',
      headers: { ...bearer(id), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    session = init.headers.get('mcp-session-id')!;
  }
  const response = await fetch(url, { headers: { ...bearer(id), accept: 'text/event-stream', 'mcp-session-id': session } });
  return { response, session };
}

/** Every notification method a client's handlers received, by kind. */
function heard(client: Client): string[] {
  const seen: string[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void seen.push('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void seen.push('prompts'));
  return seen;
}

describe('GET /mcp: list changes for the caller', () => {
  let dir: string;
  let t: TestApp;
  let url: URL;
  const clients = sdkClients(() => url);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-listen-'));
    ({ t, url } = await gateway(dir));
  }, 30_000);
  afterEach(() => clients.close());
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('initialize declares listChanged for tools, resources and prompts', async () => {
    const c = await clients.connect({ headers: bearer('all') });
    expect(c.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
    });
  });

  it("each kind's change reaches the SDK client's handler, and only a caller whose own list changed hears it", async () => {
    const all = await clients.connect({ headers: bearer('all') });
    const offersOnly = await clients.connect({ headers: bearer('offers') });
    const allHeard = heard(all);
    const offersHeard = heard(offersOnly);
    // The SDK opens its GET stream after initialize; a listing answered proves the session works, the wait lets the GET land.
    await all.listTools();
    await new Promise((resolve) => setTimeout(resolve, 500));

    await all.callTool({ name: 'fx_add_tool', arguments: {} });
    await waitFor(() => allHeard.includes('tools'), 'tools/list_changed');
    expect((await all.listTools()).tools.map((tool) => tool.name)).toContain('fx_added');

    await all.callTool({ name: 'of_add_resource', arguments: {} });
    await waitFor(() => allHeard.includes('resources') && offersHeard.includes('resources'), 'resources/list_changed');
    await all.callTool({ name: 'of_add_prompt', arguments: {} });
    await waitFor(() => allHeard.includes('prompts') && offersHeard.includes('prompts'), 'prompts/list_changed');
    expect((await offersOnly.listPrompts()).prompts.map((p) => p.name)).toContain('of_added');

    // fx_added is not among the tools the `offers` key may use: its tool list did not change, so it heard nothing of it.
    expect(offersHeard).not.toContain('tools');
  }, 30_000);

  it(`a key holds at most ${STREAMS_PER_KEY} streams on a replica (then 429), and DELETE /mcp ends its session's`, async () => {
    const first = await rawStream(url, 'bound');
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('content-type')).toBe('text/event-stream');
    const reader = first.response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^: /);
    const others = [];
    for (let n = 1; n < STREAMS_PER_KEY; n++) others.push(await rawStream(url, 'bound', first.session));
    expect(others.every((o) => o.response.status === 200)).toBe(true);

    const over = await rawStream(url, 'bound', first.session);
    expect(over.response.status).toBe(429);
    const body = (await over.response.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe('RATE_LIMITED');
    expect(body.error.message).toContain(`${STREAMS_PER_KEY} GET /mcp streams`);

    const deleted = await fetch(url, { method: 'DELETE', headers: { ...bearer('bound'), 'mcp-session-id': first.session } });
    expect(deleted.status).toBe(204);
    let done = false;
    while (!done) done = (await reader.read()).done;
    await Promise.all(others.map((o) => o.response.body!.cancel()));
    const again = await rawStream(url, 'bound', first.session);
    expect(again.response.status).toBe(200);
    await again.response.body!.cancel();
  });

  it('GET without Accept: text/event-stream or without an Mcp-Session-Id is a 400 JSON-RPC error', async () => {
    const noAccept = await fetch(url, { headers: { ...bearer('all'), 'mcp-session-id': 'abc' } });
    expect(noAccept.status).toBe(400);
    expect(((await noAccept.json()) as { error: { message: string } }).error.message).toContain('Accept: text/event-stream');
    const noSession = await fetch(url, { headers: { ...bearer('all'), accept: 'text/event-stream' } });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as { error: { message: string } }).error.message).toContain('Mcp-Session-Id');
  });
});

describe('shutdown with GET /mcp streams open', () => {
  it("app.close() ends SDK clients' and raw fetch streams and finishes promptly", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tg-listen-close-'));
    const { t, url } = await gateway(dir);
    const clients = sdkClients(() => url);
    try {
      await clients.connect({ headers: bearer('all') });
      await clients.connect({ headers: bearer('ending') });
      const raw = await rawStream(url, 'ending');
      const reader = raw.response.body!.getReader();
      await reader.read();
      await new Promise((resolve) => setTimeout(resolve, 500));

      const started = Date.now();
      await t.close();
      expect(Date.now() - started).toBeLessThan(3_000);
      let done = false;
      while (!done) done = (await reader.read()).done;
    } finally {
      await clients.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
