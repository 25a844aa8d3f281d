import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startAuthorizationServer } from '../../helpers/authorization-server.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { isolated, portOf, startGateway, TEST_MS, useGatewayScratch, watchRefusal, writeConfig } from '../server-harness.js';

/** `toolgate serve` with auth.oauth: issuers are discovered before the port opens. */

useGatewayScratch();

const RESOURCE = 'https://toolgate.example.com/';

function get(port: number, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('auth.oauth at start-up', { timeout: TEST_MS }, () => {
  it('an issuer that cannot be discovered stops start-up, named, before the port opens', async () => {
    const port = await freePort();
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const config = await writeConfig(`auth: {oauth: [{issuer: "${nobody}", audience: "${RESOURCE}", tenant: acme}]}\n`);
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    expect(gateway.stderr()).toContain(`auth.oauth.0.issuer: ${nobody}: its metadata cannot be read`);
  });

  it('a discovered issuer: its tokens call the gateway, which needs no API key to leave loopback-only mode', async () => {
    const as = await startAuthorizationServer({ claims: { org: 'acme' } });
    try {
      const config = await writeConfig(`auth: {oauth: [{issuer: "${as.issuer}", audience: "${RESOURCE}", tenant_claim: org}]}\n`);
      const gateway = startGateway(isolated({ TOOLGATE_CONFIG: config }));
      const port = portOf((await gateway.ready).address);
      expect(await get(port, '/tools', await as.clientCredentials(RESOURCE, 'toolgate:execute'))).toBe(200);
      expect(await get(port, '/tools', 'not-a-token')).toBe(401);
      expect(gateway.logs.some((line) => JSON.stringify(line).includes('no API keys configured'))).toBe(false);
    } finally {
      await as.close();
    }
  });
});
