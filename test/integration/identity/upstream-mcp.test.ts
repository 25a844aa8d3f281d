import type { ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../helpers/authorization-server.js';
import { freePort, startEverythingHttp, stop } from '../../helpers/mcp.js';
import { ManualClock } from '../../../src/shared/clock.js';

/** An upstream MCP server over HTTP, called by a token caller, sees only the headers its configuration names. */

const RESOURCE = 'https://toolgate.example.com/';
let as: AuthorizationServer;
let everything: ChildProcess;
let proxy: Server;
let t: TestApp;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer({ claims: { org: 'acme' } });
  const port = await freePort();
  everything = await startEverythingHttp(port);
  // Passes every request on unchanged, keeping its headers.
  proxy = createServer((req, res) => {
    seen.push(req.headers);
    const upstream = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = (proxy.address() as AddressInfo).port;
  t = await buildTestApp({
    builtins: false,
    clock: new ManualClock(Date.now()),
    config: {
      auth: { oauth: [{ issuer: as.issuer, audience: RESOURCE, tenant_claim: 'org' }] },
      mcp_servers: [
        { name: 'web', url: `http://127.0.0.1:${proxied}/mcp`, allow_private_network: true, prefix: 'web_', headers: { 'x-test': 'yes' } },
      ],
    },
  });
});
afterAll(async () => {
  await t.close();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await stop(everything);
  await as.close();
});

it('a token caller’s call reaches the upstream MCP server without the token or any Authorization header', async () => {
  const token = await as.clientCredentials(RESOURCE, 'toolgate:execute');
  const before = seen.length;
  const ran = await execute(t.app, [{ id: 'e', name: 'web_echo', arguments: { message: 'hi' } }], { authorization: `Bearer ${token}` });
  expect(ran.status).toBe(200);
  expect(ran.body.results[0]).toMatchObject({ status: 'success' });
  const during = seen.slice(before);
  expect(during.length).toBeGreaterThan(0);
  for (const headers of seen) {
    expect(headers['x-test']).toBe('yes');
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(token.split('.')[2]);
  }
});
