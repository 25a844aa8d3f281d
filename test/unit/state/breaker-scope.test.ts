import { describe, expect, it } from 'vitest';
import { scopeOf, scopeTenant } from '../../../src/state/breaker-scope.js';

describe('breaker scopes', () => {
  it('name the tool for a shared breaker and tenant:tool for a tenant’s own', () => {
    expect(scopeOf('Edit', null)).toBe('Edit');
    expect(scopeOf('Edit', 'acme')).toBe('acme:Edit');
  });

  it('give the tenant back, split at the last colon, or null for a shared breaker', () => {
    expect(scopeTenant('Edit')).toBeNull();
    expect(scopeTenant('acme:Edit')).toBe('acme');
    expect(scopeTenant(scopeOf('Edit', 'a:b'))).toBe('a:b');
  });
});
