import { describe, expect, it } from 'vitest';
import { metadataUrls } from '../../../src/identity/discovery.js';

describe('metadataUrls', () => {
  it('puts RFC 8414 well-known segment before the issuer path, and OpenID Discovery after it', () => {
    expect(metadataUrls('https://kc.example.com/realms/acme')).toEqual([
      'https://kc.example.com/.well-known/oauth-authorization-server/realms/acme',
      'https://kc.example.com/realms/acme/.well-known/openid-configuration',
    ]);
  });

  it('an issuer without a path (a trailing slash or none) asks the origin', () => {
    for (const issuer of ['https://tenant.auth0.com/', 'https://tenant.auth0.com']) {
      expect(metadataUrls(issuer)).toEqual([
        'https://tenant.auth0.com/.well-known/oauth-authorization-server',
        'https://tenant.auth0.com/.well-known/openid-configuration',
      ]);
    }
  });
});
