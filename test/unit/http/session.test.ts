import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { sessionIdOf } from '../../../src/http/session.js';
import { SESSION_ID_MAX } from '../../../src/protocol/calls/index.js';

const withHeader = (value?: string) => ({ headers: value === undefined ? {} : { 'x-session-id': value } }) as FastifyRequest;

describe('sessionIdOf: the x-session-id header, else the fallback', () => {
  it('names the session when the header is set', () => {
    expect(sessionIdOf(withHeader('conv-1'), 'key-id')).toBe('conv-1');
  });

  it('falls back when the header is absent or empty', () => {
    expect(sessionIdOf(withHeader(), 'key-id')).toBe('key-id');
    expect(sessionIdOf(withHeader(''), 'key-id')).toBe('key-id');
  });

  it(`refuses a header longer than ${SESSION_ID_MAX} characters as BAD_REQUEST`, () => {
    expect(sessionIdOf(withHeader('s'.repeat(SESSION_ID_MAX)), 'key-id')).toHaveLength(SESSION_ID_MAX);
    expect(() => sessionIdOf(withHeader('s'.repeat(SESSION_ID_MAX + 1)), 'key-id')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});
