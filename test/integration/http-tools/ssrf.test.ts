import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/schema.js';
import { createHttpTool, type HttpDispatchers } from '../../../src/tools/http/index.js';
import { isForbiddenAddress } from '../../../src/tools/http/ssrf.js';
import {
  callContext,
  createTestDispatchers,
  expectTripwireQuiet,
  expectWiredThroughTripwire,
  failure,
  httpToolConfig,
  startServer,
  type TestServer,
} from './helpers.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

// The addresses below must never be reached even if the guard breaks: every pool here connects through
// the tripwire (helpers.ts), which refuses anything outside loopback, and resolves names in memory.
const env = { TG_TOKEN: 'tok-123' };
const dispatchers = createTestDispatchers();
let target: TestServer;
let other: TestServer;

beforeAll(async () => {
  target = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const location = url.searchParams.get('to');
    if (location) {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location });
      res.end('moved');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`reached ${url.pathname}`);
  });
  other = await startServer((_req, res) => {
    res.writeHead(200);
    res.end('other origin');
  });
  // Nothing below runs unless both pools really connect through the tripwire.
  await expectWiredThroughTripwire(dispatchers, other.port);
});
afterEach(expectTripwireQuiet);
afterAll(async () => {
  await Promise.all([target.close(), other.close()]);
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

function tool(http: Partial<ToolConfig['http']> & { url: string }, pools: HttpDispatchers = dispatchers) {
  return createHttpTool(httpToolConfig({ method: 'GET', ...http }), {
    dispatchers: pools,
    credentials: createEnvCredentials(env),
  });
}

describe('SSRF guard: without allow_private_network, non-public targets are refused before connecting', () => {
  const port = () => target.port;
  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port()}/`],
    ['::1', () => `http://[::1]:${port()}/`],
    ['10.x', () => 'http://10.0.0.1/'],
    ['169.254.x (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['0.0.0.0', () => `http://0.0.0.0:${port()}/`],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/`],
    ['IPv4-mapped metadata', () => 'http://[::ffff:169.254.169.254]/'],
    ['172.16.x', () => 'http://172.16.5.4/'],
    ['192.168.x', () => 'http://192.168.1.1/'],
    ['CGNAT', () => 'http://100.64.0.1/'],
    ['IPv6 unique local', () => 'http://[fd00::1]/'],
    ['IPv6 link-local', () => 'http://[fe80::1]/'],
    ['decimal-encoded loopback', () => `http://2130706433:${port()}/`],
    ['a hostname resolving to loopback', () => `http://localhost:${port()}/`],
  ])('%s', async (_name, url) => {
    const before = target.requests.length;
    const started = Date.now();
    const err = await failure(() => tool({ url: url() }).run({}, callContext(5000, undefined, env)));
    expect(err.code).toBe('PERMISSION_DENIED');
    expect(err.retryable).toBe(false);
    expect(err.details).toMatchObject({ reason: 'private_network' });
    // Refused at resolution, not by a failed connection attempt.
    expect(Date.now() - started).toBeLessThan(500);
    expect(target.requests.length).toBe(before);
  });

  it.each([
    ['a private address', ['10.0.0.1'], '10.0.0.1'],
    ['the metadata service', ['169.254.169.254'], '169.254.169.254'],
    ['a public and a private address', ['198.51.100.7', '10.0.0.1'], '10.0.0.1'],
  ])('a hostname resolving to %s', async (_name, addresses, refused) => {
    // The tripwire's resolver answers `localhost` with these addresses; no DNS is asked.
    const pools = createTestDispatchers({ localhost: addresses });
    try {
      const err = await failure(() => tool({ url: `http://localhost:${target.port}/` }, pools).run({}, callContext(5000, undefined, env)));
      expect(err).toMatchObject({ code: 'PERMISSION_DENIED', details: { reason: 'private_network', host: 'localhost', address: refused } });
    } finally {
      await Promise.all([pools.guarded.close(), pools.open.close()]);
    }
  });

  it('both pools open their sockets through the tripwire', async () => {
    const pools = createTestDispatchers({ isForbidden: (ip) => ip !== '127.0.0.1' && isForbiddenAddress(ip) });
    try {
      expect(await tool({ url: `${target.origin}/ok` }, pools).run({}, callContext(5000, undefined, env))).toEqual({ text: 'reached /ok' });
      const open = tool({ url: `http://localhost:${target.port}/ok`, allow_private_network: true }, pools);
      expect(await open.run({}, callContext(5000, undefined, env))).toEqual({ text: 'reached /ok' });
      expect(pools.tripwire.passed).toEqual(['127.0.0.1', 'localhost']);
    } finally {
      await Promise.all([pools.guarded.close(), pools.open.close()]);
    }
  });

  it('with allow_private_network: true the same targets are reached', async () => {
    expect(await tool({ url: `${target.origin}/ok`, allow_private_network: true }).run({}, callContext(5000, undefined, env))).toEqual({
      text: 'reached /ok',
    });
    expect(
      await tool({ url: `http://localhost:${target.port}/ok`, allow_private_network: true }).run({}, callContext(5000, undefined, env)),
    ).toEqual({
      text: 'reached /ok',
    });
  });
});

describe('redirects: not followed unless allowed, then checked at every hop', () => {
  const redirectTo = (location: string, status = 302) => `${target.origin}/r?status=${status}&to=${encodeURIComponent(location)}`;

  it('are not followed by default', async () => {
    const before = other.requests.length;
    const err = await failure(() =>
      tool({ url: redirectTo(`${other.origin}/`), allow_private_network: true }).run({}, callContext(5000, undefined, env)),
    );
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: false, details: { status: 302 } });
    expect(other.requests.length).toBe(before);
  });

  it('are followed up to follow_redirects hops', async () => {
    const twice = redirectTo(redirectTo(`${target.origin}/final`));
    expect(await tool({ url: twice, allow_private_network: true, follow_redirects: 2 }).run({}, callContext(5000, undefined, env))).toEqual(
      {
        text: 'reached /final',
      },
    );
    const err = await failure(() =>
      tool({ url: twice, allow_private_network: true, follow_redirects: 1 }).run({}, callContext(5000, undefined, env)),
    );
    expect(err.details).toMatchObject({ status: 302 });
  });

  it('a redirect to loopback is refused even when the first hop was allowed', async () => {
    // Treat the test server's own address as public so the first hop connects; everything else keeps the real policy.
    const pools = createTestDispatchers({ isForbidden: (ip) => ip !== '127.0.0.1' && isForbiddenAddress(ip) });
    try {
      const hop = tool({ url: `${target.origin}/ok`, follow_redirects: 3 }, pools);
      expect(await hop.run({}, callContext(5000, undefined, env))).toEqual({ text: 'reached /ok' });
      for (const loopback of [`http://127.0.0.2:${target.port}/`, `http://[::1]:${target.port}/`, 'http://169.254.169.254/']) {
        const err = await failure(() =>
          tool({ url: redirectTo(loopback), follow_redirects: 3 }, pools).run({}, callContext(5000, undefined, env)),
        );
        expect(err).toMatchObject({ code: 'PERMISSION_DENIED', details: { reason: 'private_network' } });
      }
    } finally {
      await Promise.all([pools.guarded.close(), pools.open.close()]);
    }
  });

  it('only http and https are followed', async () => {
    const err = await failure(() =>
      tool({ url: redirectTo('file:///etc/passwd'), allow_private_network: true, follow_redirects: 3 }).run(
        {},
        callContext(5000, undefined, env),
      ),
    );
    expect(err).toMatchObject({ code: 'PERMISSION_DENIED', details: { reason: 'redirect_scheme' } });
  });

  it('configured headers, literal or ${VAR}, are never sent to another origin; a redirect within the origin keeps them', async () => {
    const headers = { authorization: 'Bearer ${TG_TOKEN}', 'x-static': 'Bearer literal-token' };
    const away = redirectTo(`${other.origin}/landing`);
    expect(
      await tool({ url: away, headers, allow_private_network: true, follow_redirects: 1 }).run({}, callContext(5000, undefined, env)),
    ).toEqual({
      text: 'other origin',
    });
    expect(target.requests.at(-1)!.headers).toMatchObject({ authorization: 'Bearer tok-123', 'x-static': 'Bearer literal-token' });
    expect(other.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(other.requests.at(-1)!.headers['x-static']).toBeUndefined();
    const within = redirectTo(`${target.origin}/inside`);
    expect(
      await tool({ url: within, headers, allow_private_network: true, follow_redirects: 1 }).run({}, callContext(5000, undefined, env)),
    ).toEqual({
      text: 'reached /inside',
    });
    expect(target.requests.at(-1)!.headers).toMatchObject({ authorization: 'Bearer tok-123', 'x-static': 'Bearer literal-token' });
  });

  it('303 turns a POST into a GET without body; 307 repeats the POST with its body', async () => {
    for (const [status, method, body] of [
      [303, 'GET', ''],
      [307, 'POST', '{"a":1}'],
    ] as const) {
      const url = redirectTo(`${other.origin}/after`, status);
      await tool({ url, method: 'POST', allow_private_network: true, follow_redirects: 1 }).run(
        { a: 1 },
        callContext(5000, undefined, env),
      );
      expect(other.requests.at(-1)).toMatchObject({ method, body });
    }
  });
});
