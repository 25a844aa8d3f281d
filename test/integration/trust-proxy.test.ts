import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = 'tg_exec-key-of-acme-0123456789';
const KEYS = [{ id: 'acme', sha256: sha256(KEY), tenant: 'acme', scopes: ['execute'] }];

/** The gateway listens on 127.0.0.1; all of 127.0.0.0/8 is loopback, so the two peers are two local source addresses. */
const PROXY = '127.0.0.1';
const STRANGER = '127.0.0.2';
/** Clients behind the proxy (RFC 5737 documentation addresses): they only ever appear inside a header. */
const ALICE = '192.0.2.1';
const BOB = '192.0.2.2';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** `failures_per_minute: 1`: an address's second failure in the minute blocks it. */
async function gateway(config: Record<string, unknown>): Promise<{ t: TestApp; port: number }> {
  t = await buildTestApp({ config: { keys: KEYS, auth: { failures_per_minute: 1 }, ...config } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, port: (t.app.server.address() as AddressInfo).port };
}

/** GET /tools over a fresh TCP connection from `from`, with the key and X-Forwarded-For given; resolves to the status. */
function get(port: number, from: string, key: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/tools', localAddress: from, agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const clientIps = (app: TestApp) => app.logs.filter((l) => l.msg === 'request completed').map((l) => l.client_ip);

describe('trust_proxy: the client address behind a trusted proxy (brute-force limit, logs)', () => {
  it('the two local peers are distinct addresses to the gateway', async () => {
    const { t: app, port } = await gateway({});
    expect(await get(port, PROXY, KEY)).toBe(200);
    expect(await get(port, STRANGER, KEY)).toBe(200);
    expect(clientIps(app)).toEqual([PROXY, STRANGER]);
  });

  it('from a trusted proxy, failures count against the forwarded client (rightmost untrusted hop) only', async () => {
    const { t: app, port } = await gateway({ trust_proxy: ['127.0.0.1/32'] });
    expect(await get(port, PROXY, 'wrong', ALICE)).toBe(401);
    // A client that sends its own X-Forwarded-For: the proxy appends what it saw, and that rightmost hop is counted.
    expect(await get(port, PROXY, 'wrong', `${BOB}, ${ALICE}`)).toBe(429);
    expect(await get(port, PROXY, KEY, ALICE)).toBe(429);
    expect(await get(port, PROXY, KEY, BOB)).toBe(200);
    // Through the proxy, a blocked client naming another address cannot unblock itself.
    expect(await get(port, PROXY, KEY, `${BOB}, ${ALICE}`)).toBe(429);
    // Hops that are themselves trusted proxies are skipped.
    expect(await get(port, PROXY, KEY, `${ALICE}, 127.0.0.1`)).toBe(429);
    expect(clientIps(app)).toEqual([ALICE, ALICE, ALICE, BOB, ALICE, ALICE]);
  });

  it('from an untrusted peer, X-Forwarded-For is ignored: the peer is counted and logged', async () => {
    const { t: app, port } = await gateway({ trust_proxy: ['127.0.0.1/32'] });
    expect(await get(port, STRANGER, 'wrong', ALICE)).toBe(401);
    expect(await get(port, STRANGER, 'wrong', BOB)).toBe(429);
    expect(await get(port, STRANGER, KEY, BOB)).toBe(429);
    expect(await get(port, STRANGER, KEY)).toBe(429);
    // The forged addresses were never counted: through the proxy they are not blocked.
    expect(await get(port, PROXY, KEY, ALICE)).toBe(200);
    expect(await get(port, PROXY, KEY, BOB)).toBe(200);
    expect(clientIps(app)).toEqual([STRANGER, STRANGER, STRANGER, STRANGER, ALICE, BOB]);
  });

  it('without trust_proxy, X-Forwarded-For is ignored and the TCP peer is counted', async () => {
    const { t: app, port } = await gateway({});
    expect(await get(port, PROXY, 'wrong', ALICE)).toBe(401);
    expect(await get(port, PROXY, 'wrong', BOB)).toBe(429);
    expect(await get(port, PROXY, KEY, '192.0.2.3')).toBe(429);
    expect(await get(port, STRANGER, KEY, ALICE)).toBe(200);
    expect(clientIps(app)).toEqual([PROXY, PROXY, PROXY, STRANGER]);
  });
});
