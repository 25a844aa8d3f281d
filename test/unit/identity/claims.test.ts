import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { callerOf, tokenScopeFor } from '../../../src/identity/claims.js';
import { TokenRejected } from '../../../src/identity/reasons.js';

const issuer = (extra: Record<string, unknown> = {}) =>
  configFrom({ auth: { oauth: [{ issuer: 'https://login.example.com/', audience: 'https://gw/', tenant_claim: 'org', ...extra }] } }).auth
    .oauth[0]!;

function rejection(run: () => unknown): TokenRejected {
  try {
    run();
  } catch (err) {
    if (err instanceof TokenRejected) return err;
    throw err;
  }
  throw new Error('expected a TokenRejected');
}

describe('callerOf: verified claims as a caller', () => {
  it('sub is the user, the tenant claim the tenant, mapped scopes only; the key id names the client', () => {
    const caller = callerOf({ sub: 'alice', org: 'acme', client_id: 'cli', scope: 'openid toolgate:execute other' }, issuer());
    expect(caller).toMatchObject({ keyId: 'oauth:cli', tenant: 'acme', user: 'alice', scopes: new Set(['execute']) });
    expect(caller.allows('Anything')).toBe(true);
    expect(callerOf({ sub: 'a', org: 'acme', azp: 'spa' }, issuer()).keyId).toBe('oauth:spa');
    expect(callerOf({ sub: 'a', org: 'acme' }, issuer()).keyId).toBe('oauth:token');
  });

  it('reads scp as a list or a string (Entra ID, Okta), through a custom scopes_map', () => {
    const entra = issuer({ scopes_map: { 'toolgate.execute': 'execute', 'toolgate.admin': 'admin' } });
    expect([...callerOf({ sub: 'a', org: 'acme', scp: 'toolgate.admin' }, entra).scopes]).toEqual(['admin']);
    expect([...callerOf({ sub: 'a', org: 'acme', scp: ['toolgate.execute', 'toolgate.admin'] }, entra).scopes]).toEqual([
      'execute',
      'admin',
    ]);
    expect(tokenScopeFor(entra, 'admin')).toBe('toolgate.admin');
  });

  it('a tools claim narrows the tools as a key list does (names and globs, list or space-separated); no claim, no narrowing', () => {
    const narrowed = callerOf({ sub: 'a', org: 'acme', tools: 'Read gh_*' }, issuer({ tools_claim: 'tools' }));
    expect(['Read', 'gh_issues', 'Write'].filter((tool) => narrowed.allows(tool))).toEqual(['Read', 'gh_issues']);
    expect(narrowed.tools).toEqual(['Read', 'gh_*']);
    expect(callerOf({ sub: 'a', org: 'acme', tools: ['LS'] }, issuer({ tools_claim: 'tools' })).allows('Read')).toBe(false);
    expect(callerOf({ sub: 'a', org: 'acme' }, issuer({ tools_claim: 'tools' })).allows('Read')).toBe(true);
  });

  it('a fixed tenant needs no claim; a missing or unusable tenant claim, or no user, is refused naming the claim', () => {
    const fixed = issuer({ tenant_claim: undefined, tenant: 'acme' });
    expect(callerOf({ sub: 'a' }, fixed).tenant).toBe('acme');
    const missing = rejection(() => callerOf({ sub: 'a' }, issuer()));
    expect(missing).toMatchObject({ reason: 'missing_tenant', details: { reason: 'missing_tenant' } });
    expect(missing.message).toContain('"org" claim');
    expect(rejection(() => callerOf({ sub: 'a', org: '../other' }, issuer())).reason).toBe('missing_tenant');
    expect(rejection(() => callerOf({ org: 'acme' }, issuer())).message).toContain('"sub" claim');
    expect(rejection(() => callerOf({ sub: 'a', org: 'acme' }, issuer({ user_claim: 'email' }))).reason).toBe('missing_user');
  });
});
