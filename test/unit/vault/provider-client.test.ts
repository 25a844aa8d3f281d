import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createProviderClient, REQUEST_MS } from '../../../src/vault/provider-client.js';
import { vaultSettings } from '../../../src/vault/settings.js';

/** docs/credentials.md, "The vault": a provider request ends within REQUEST_MS, so a refresh never outlives its lease. */
describe('provider client', () => {
  let server: Server;
  let url: string;
  const dispatcher = new Agent();
  beforeAll(async () => {
    // A token endpoint that answers its headers, then drips its body a byte a second: each chunk in time, the whole never.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 1_000);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await dispatcher.close();
  });

  it('gives up on a token answer still dripping after REQUEST_MS', async () => {
    const config = configFrom({
      oauth_providers: [
        {
          name: 'slow',
          authorization_endpoint: `${url}/authorize`,
          token_endpoint: `${url}/token`,
          client_id: 'c',
          client_secret: '${SLOW_SECRET}',
          allow_private_network: true,
        },
      ],
    });
    const { settings } = vaultSettings(config, {
      SLOW_SECRET: 's',
      TOOLGATE_PUBLIC_URL: 'https://toolgate.example.com',
      TOOLGATE_VAULT_KEY: Buffer.alloc(32, 1).toString('base64'),
      TOOLGATE_VAULT_KEY_ID: 'k1',
    });
    const client = createProviderClient(settings!.providers[0]!, dispatcher);
    const started = Date.now();
    await expect(client.refresh('rt')).rejects.toThrow();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(took).toBeLessThan(REQUEST_MS + 2_000);
  }, 20_000);
});
