import { describe, expect, it } from 'vitest';
import { callEntry } from '../../suites/audit-store.suite.js';

describe('a sealed line', () => {
  it('is the canonical JSON of the entry and its place, keys sorted at every depth, with its hash last', async () => {
    const { seal } = await import('../../../src/audit/chain.js');
    const { canonicalJson, sha256Hex } = await import('../../../src/protocol/canonical.js');
    const entry = callEntry(7, { arguments: { z: 1, a: { y: [2, { c: 3, b: 4 }], x: 'é' } } });
    const place = { seq: 7, time: '2030-01-01T00:00:00.000Z', replica: 'r1', prev: 'f'.repeat(64) };
    const { line, hash } = seal(entry, place);
    const body = canonicalJson({ ...entry, ...place });
    expect(hash).toBe(sha256Hex(place.prev + body));
    expect(line).toBe(`${body.slice(0, -1)},"hash":"${hash}"}`);
  });
});
