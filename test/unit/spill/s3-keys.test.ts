import { describe, expect, it } from 'vitest';
import { createdAt, ID_PATTERN, newId, tenantSegment } from '../../../src/spill/s3-keys.js';

describe('newId', () => {
  it('is 30 base64url characters that tell the time it was made', () => {
    const now = Date.UTC(2026, 5, 1, 12, 30);
    const id = newId(now);
    expect(id).toMatch(ID_PATTERN);
    expect(createdAt(id)).toBe(now);
    expect(newId(now)).not.toBe(id);
  });

  it('writes the time as whole, non-negative milliseconds', () => {
    expect(createdAt(newId(-5))).toBe(0);
    expect(createdAt(newId(1.9))).toBe(1);
  });
});

describe('tenantSegment', () => {
  it('keeps a plain tenant name as it is', () => {
    for (const tenant of ['acme', 'team_a-1', 'v1.2']) expect(tenantSegment(tenant)).toBe(tenant);
  });

  it('hashes any tenant that could add a level, collide or run long', () => {
    for (const tenant of ['..', 'a/b', '.hidden', '', 'x'.repeat(65), 'tenant with spaces']) {
      expect(tenantSegment(tenant)).toMatch(/^~[0-9a-f]{64}$/);
    }
    expect(tenantSegment('a/b')).not.toBe(tenantSegment('a_b'));
  });
});
