import { describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/redis-global-setup.js';
import { isolated, startGateway, TEST_MS, useGatewayScratch, watchRefusal, writeConfig } from '../server-harness.js';

useGatewayScratch();

/** docs/credentials.md, "Configuration": what stops start-up, every problem named in one run, no value shown. */
describe('per-user credentials at start-up', { timeout: TEST_MS }, () => {
  it('stops naming an unknown provider, a provider without its client secret, no public URL and a short vault key', async () => {
    const port = await freePort();
    const config = await writeConfig(`
oauth_providers:
  - {name: corp, issuer: "https://login.example.com", client_id: toolgate, client_secret: "\${TOOLGATE_TEST_CORP_SECRET}"}
tools:
  - name: mine
    description: Mine.
    parameters: {type: object}
    http: {method: GET, url: "https://api.example.com/me"}
    auth: {provider: gitlab}
`);
    const shortKey = Buffer.alloc(16, 7).toString('base64');
    const gateway = startGateway(
      isolated({ PORT: String(port), TOOLGATE_CONFIG: config, TOOLGATE_VAULT_KEY: shortKey, TOOLGATE_VAULT_KEY_ID: 'k1' }),
    );
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const stderr = gateway.stderr();
    for (const problem of [
      'tools.mine.auth.provider: "gitlab" is not in oauth_providers; add it there, or use one of corp',
      'oauth_providers.corp.client_secret: uses ${TOOLGATE_TEST_CORP_SECRET}, which is not set in the environment',
      'TOOLGATE_PUBLIC_URL: must be the gateway’s public base URL',
      'TOOLGATE_VAULT_KEY must be base64 of 32 random bytes (openssl rand -base64 32); it decodes to 16 bytes',
    ]) {
      expect(stderr).toContain(problem);
    }
    expect(stderr).not.toContain(shortKey);
  });
});
