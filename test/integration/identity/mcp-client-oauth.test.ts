import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import { queryAudit, type AuditTrail } from '../../../src/audit/index.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../helpers/authorization-server.js';
import { launchBrowser, type Browser } from '../../helpers/browser.js';
import { MemoryOAuthClient, signIn, startRedirectReceiver, type RedirectReceiver } from '../../helpers/browser-sign-in.js';
import { freePort } from '../../helpers/mcp.js';
import { step } from '../../helpers/step.js';
import { openTrail } from '../../suites/audit-store.suite.js';
import { createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from '../http-tools/helpers.js';
import { startMcpHttpUpstream, type McpHttpUpstream } from '../tracing/mcp-http-upstream.js';

/**
 * An MCP client nobody here wrote, the official TypeScript SDK's, signs a person in and calls tools (docs/auth.md, "Connecting clients"):
 * its 401 leads it to the protected resource metadata, the authorization server's metadata, a dynamic registration
 * and an authorization code with PKCE for this gateway's resource; the person signs in in chromium on the
 * authorization server's own pages; with the token it got, the client lists and calls tools through every gate.
 */

/** Each step's bound; a test holds several, so each test's own bound is TEST_MS. */
const STEP_MS = 15_000;
const TEST_MS = 90_000;

let as: AuthorizationServer;
let t: TestApp;
let trail: AuditTrail;
let auditDir: string;
let acmeWorkspace: string;
let upstream: TestServer;
let mcpUpstream: McpHttpUpstream;
let browser: Browser;
let receiver: RedirectReceiver;
let gateway: string;
const exchanges: Array<{ method: string; url: string; status: number; authenticate: string | null }> = [];

/** The SDK's fetch, every exchange kept (method, URL, status, WWW-Authenticate) so the test can read the flow back. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  exchanges.push({ method: init?.method ?? 'GET', url, status: response.status, authenticate: response.headers.get('www-authenticate') });
  return response;
};

beforeAll(async () => {
  as = await step('starting the authorization server', STEP_MS, () => startAuthorizationServer({ claims: { org: 'acme' } }));
  upstream = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'open' }));
  });
  mcpUpstream = await step('starting the upstream MCP server', STEP_MS, () => startMcpHttpUpstream('the upstream answered'));
  auditDir = await mkdtemp(join(tmpdir(), 'toolgate-oauth-audit-'));
  acmeWorkspace = await mkdtemp(join(tmpdir(), 'toolgate-oauth-acme-'));
  trail = await openTrail(createFileAuditStore({ dir: auditDir, rotateBytes: 1 << 20 }));
  // The SDK asks for a token for the metadata's resource only when it is the MCP URL's origin (or a prefix of its
  // path): the audience names the address the gateway will listen on.
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  t = await step('building the gateway (discovering the issuer)', STEP_MS, () =>
    buildTestApp({
      // Tokens are checked against the app's clock, so it stands at now: when the authorization server signs them, within the leeway.
      clock: new ManualClock(Date.now()),
      audit: trail,
      dispatchers: createTestDispatchers(),
      config: {
        policy: { rules: [{ tool: 'Write', decision: 'deny' }] },
        tenants: { acme: { workspace: acmeWorkspace } },
        auth: { oauth: [{ issuer: as.issuer, audience: `${gateway}/`, tenant_claim: 'org' }] },
        mcp_servers: [
          { name: 'web', url: `${mcpUpstream.origin}/mcp`, allow_private_network: true, prefix: 'web_', connect_timeout_ms: 10_000 },
        ],
        tools: [
          {
            name: 'ticket_status',
            description: 'The status of a ticket in the loopback tracker.',
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            http: { method: 'GET', url: `${upstream.origin}/tickets/{id}`, retries: 0, allow_private_network: true },
          },
        ],
      },
    }),
  );
  await step('listening', STEP_MS, () => t.app.listen({ host: '127.0.0.1', port }));
  await writeFile(join(acmeWorkspace, 'notes.txt'), 'signed in through the SDK\n');
  browser = await step('launching chromium', STEP_MS, launchBrowser);
  // Nothing the pages load may leave loopback.
  await browser.context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  receiver = await startRedirectReceiver();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
  await trail?.close();
  await upstream?.close();
  await mcpUpstream?.close();
  await as?.close();
  for (const dir of [auditDir, acmeWorkspace]) if (dir) await rm(dir, { recursive: true, force: true });
  expectTripwireQuiet();
});

describe('the MCP SDK client signs alice in with OAuth and calls tools through toolgate', () => {
  let oauth: MemoryOAuthClient;
  let client: Client | undefined;
  afterAll(() => client?.close());

  it(
    'the first connect is refused with 401 naming the protected resource metadata; the SDK discovers, registers and asks for an authorization code with PKCE for this resource',
    async () => {
      oauth = new MemoryOAuthClient(receiver.url, 'toolgate e2e client');
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', gateway), { authProvider: oauth, fetch: recordingFetch });
      const refused = await step('the first connect', STEP_MS, () =>
        new Client({ name: 'oauth-e2e', version: '1.0.0' }).connect(transport).then(
          () => new Error('connected without a token'),
          (error: unknown) => error,
        ),
      );
      expect(refused).toBeInstanceOf(UnauthorizedError);

      const first = exchanges[0]!;
      expect(first).toMatchObject({ method: 'POST', url: `${gateway}/mcp`, status: 401 });
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.authenticate ?? '')?.[1];
      expect(metadataUrl?.startsWith(`${gateway}/.well-known/oauth-protected-resource`), `WWW-Authenticate: ${first.authenticate}`).toBe(
        true,
      );
      const metadata = await step(
        'the resource metadata',
        STEP_MS,
        async () => (await fetch(metadataUrl!)).json() as Promise<Record<string, unknown>>,
      );
      expect(metadata).toMatchObject({ resource: `${gateway}/`, authorization_servers: [as.issuer] });
      expect(metadata['scopes_supported']).toContain('toolgate:execute');
      // In order: the refusal, the resource's metadata, the authorization server's (RFC 8414 or OpenID), the registration.
      expect(exchanges.slice(0, 4).map((e) => `${e.method} ${e.url} ${e.status}`)).toEqual([
        `POST ${gateway}/mcp 401`,
        `GET ${metadataUrl} 200`,
        expect.stringMatching(new RegExp(`^GET ${as.issuer}/\\.well-known/(oauth-authorization-server|openid-configuration) 200$`)),
        `POST ${as.issuer}/reg 201`,
      ]);

      expect(oauth.authorizationUrls).toHaveLength(1);
      const authorize = oauth.authorizationUrls[0]!;
      expect(authorize.origin).toBe(as.issuer);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: oauth.clientInformation()!.client_id,
        redirect_uri: receiver.url,
        code_challenge_method: 'S256',
        state: oauth.sentState,
        resource: `${gateway}/`,
      });
      expect(authorize.searchParams.get('scope')?.split(' ')).toContain('toolgate:execute');
    },
    TEST_MS,
  );

  it(
    'alice signs in and consents in chromium; the code reaches the loopback redirect URI and finishAuth trades it for a token for this gateway naming her',
    async () => {
      const landed = await signIn(browser, oauth.authorizationUrls[0]!, 'alice', receiver, STEP_MS);
      expect(landed.get('error'), landed.get('error_description') ?? '').toBeNull();
      expect(landed.get('state')).toBe(oauth.sentState!);
      const code = landed.get('code');
      expect(code).toBeTruthy();
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', gateway), { authProvider: oauth, fetch: recordingFetch });
      await step('finishAuth (the token request)', STEP_MS, () => transport.finishAuth(code!));
      const token = oauth.tokens()!.access_token;
      expect(decodeJwt(token)).toMatchObject({ iss: as.issuer, sub: 'alice', aud: `${gateway}/`, org: 'acme' });
      expect(as.hits('/token')).toBe(1);
    },
    TEST_MS,
  );

  it(
    "with the token it reconnects and lists the tools; a Read of its tenant's file passes every gate and is audited, a Write the policy denies is refused",
    async () => {
      const signedIn = new Client({ name: 'oauth-e2e', version: '1.0.0' });
      client = signedIn;
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', gateway), { authProvider: oauth, fetch: recordingFetch });
      await step('the connect with a token', STEP_MS, () => signedIn.connect(transport));
      const { tools } = await step('tools/list', STEP_MS, () => signedIn.listTools());
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Read', 'ticket_status', 'web_answer']));

      const read = await step('tools/call Read', STEP_MS, () => signedIn.callTool({ name: 'Read', arguments: { path: 'notes.txt' } }));
      expect(read.isError, JSON.stringify(read.content)).toBe(false);
      expect(JSON.stringify(read.content)).toContain('signed in through the SDK');

      await trail.flush();
      const [record] = await queryAudit(trail.store, { tenant: 'acme', tool: 'Read', limit: 1 });
      expect(record).toMatchObject({ kind: 'call', tenant: 'acme', tool: 'Read', decision: 'allow', status: 'success' });
      expect(record).toMatchObject({ user: 'alice' });

      const write = await step('tools/call Write', STEP_MS, () =>
        signedIn.callTool({ name: 'Write', arguments: { path: 'denied.txt', content: 'no\n' } }),
      );
      expect(write.isError).toBe(true);
      expect(JSON.stringify(write.content)).toContain('PERMISSION_DENIED');
      await expect(access(join(acmeWorkspace, 'denied.txt'))).rejects.toThrow(/ENOENT/);
    },
    TEST_MS,
  );

  it(
    "the client's token is never passed on: an HTTP tool's upstream and an MCP server's see no Authorization, the token is in no log line and no audit record",
    async () => {
      const token = oauth.tokens()!.access_token;
      const http = await step('tools/call ticket_status', STEP_MS, () =>
        client!.callTool({ name: 'ticket_status', arguments: { id: 'T-7' } }),
      );
      expect(http.isError, JSON.stringify(http.content)).toBe(false);
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
      expect(JSON.stringify(upstream.requests)).not.toContain(token);

      const mcp = await step('tools/call web_answer', STEP_MS, () => client!.callTool({ name: 'web_answer', arguments: { q: 'status' } }));
      expect(JSON.stringify(mcp.content)).toContain('the upstream answered');
      expect(mcpUpstream.calls).toHaveLength(1);
      expect(mcpUpstream.headers.map((headers) => headers.authorization)).toEqual(mcpUpstream.headers.map(() => undefined));
      expect(JSON.stringify(mcpUpstream.headers)).not.toContain(token);

      expect(JSON.stringify(t.logs)).not.toContain(token);
      await trail.flush();
      const records = await queryAudit(trail.store, { tenant: 'acme', limit: 100 });
      expect(records.map((record) => record.kind === 'call' && record.tool).sort()).toEqual([
        'Read',
        'Write',
        'ticket_status',
        'web_answer',
      ]);
      expect(JSON.stringify(records)).not.toContain(token);
    },
    TEST_MS,
  );
});

describe("the first issuer's audience is the resource MCP clients ask a token for", () => {
  it(
    'an audience that is not the URL the client reaches /mcp at: the SDK refuses the metadata before registering or sending anyone to sign in',
    async () => {
      // The metadata is served beside the audience, here the same gateway; its resource names a path /mcp is not under.
      const port = await freePort();
      const audience = `http://127.0.0.1:${port}/elsewhere/`;
      const elsewhere = await step('building a gateway whose audience is another resource', STEP_MS, () =>
        buildTestApp({
          clock: new ManualClock(Date.now()),
          config: { auth: { oauth: [{ issuer: as.issuer, audience, tenant_claim: 'org' }] } },
        }),
      );
      try {
        const at = await step('listening', STEP_MS, () => elsewhere.app.listen({ host: '127.0.0.1', port }));
        const registered = as.hits('/reg');
        const oauth = new MemoryOAuthClient(receiver.url, 'toolgate e2e client');
        const transport = new StreamableHTTPClientTransport(new URL('/mcp', at), { authProvider: oauth });
        const refused = await step('the connect', STEP_MS, () =>
          new Client({ name: 'oauth-e2e', version: '1.0.0' }).connect(transport).then(
            () => new Error('connected without a token'),
            (error: unknown) => error,
          ),
        );
        expect(String(refused)).toContain(`Protected resource ${audience} does not match expected ${at}/mcp`);
        expect(as.hits('/reg')).toBe(registered);
        expect(oauth.authorizationUrls).toEqual([]);
      } finally {
        await elsewhere.close();
      }
    },
    TEST_MS,
  );
});
