import { describe, expect, it } from 'vitest';
import { ConfigError, configFrom } from '../../../src/config/load.js';

/** auth.oauth: what start-up refuses before any issuer is asked. */

const ISSUER = { issuer: 'https://login.example.com/', audience: 'https://toolgate.example.com/', tenant_claim: 'org' };

function problemsOf(oauth: unknown[]): string[] {
  try {
    configFrom({ auth: { oauth } });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('auth.oauth', () => {
  it('fills in the defaults: user sub, the toolgate scopes, asymmetric algorithms, 30 s of leeway, not lazy', () => {
    expect(configFrom({ auth: { oauth: [ISSUER] } }).auth.oauth[0]).toEqual({
      ...ISSUER,
      user_claim: 'sub',
      scopes_map: { 'toolgate:execute': 'execute', 'toolgate:admin': 'admin' },
      algorithms: ['RS256', 'ES256', 'EdDSA'],
      clock_tolerance_s: 30,
      lazy: false,
    });
  });

  it('refuses none and every symmetric algorithm, so a public key can never be an HMAC secret', () => {
    for (const alg of ['none', 'HS256', 'HS384', 'HS512']) {
      expect(problemsOf([{ ...ISSUER, algorithms: [alg] }]).join('\n'), alg).toMatch(
        /auth\/oauth\/0\/algorithms\/0|auth\.oauth\.0\.algorithms\.0/,
      );
    }
    expect(problemsOf([{ ...ISSUER, algorithms: ['PS256', 'ES384', 'EdDSA'] }])).toEqual([]);
  });

  it('needs exactly one of tenant_claim and tenant; an issuer listed twice, an empty scopes_map or a leeway over 300 s stop start-up', () => {
    const { tenant_claim: _, ...noTenant } = ISSUER;
    expect(problemsOf([noTenant])).toEqual([expect.stringMatching(/^auth\.oauth\.0: set exactly one of tenant_claim .* and tenant/)]);
    expect(problemsOf([{ ...ISSUER, tenant: 'acme' }])).toEqual([expect.stringMatching(/^auth\.oauth\.0: set exactly one/)]);
    expect(problemsOf([ISSUER, ISSUER])).toEqual([`auth.oauth.1.issuer: ${ISSUER.issuer} is listed twice`]);
    expect(problemsOf([{ ...ISSUER, scopes_map: {} }])).toEqual([
      expect.stringMatching(/^auth\.oauth\.0\.scopes_map: maps no token scope/),
    ]);
    expect(problemsOf([{ ...ISSUER, clock_tolerance_s: 301 }])).toHaveLength(1);
    expect(problemsOf([{ ...ISSUER, issuer: 'login.example.com' }])).toHaveLength(1);
  });
});
