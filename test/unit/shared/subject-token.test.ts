import { inspect } from 'node:util';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SubjectToken } from '../../../src/shared/subject-token.js';

describe('SubjectToken: the caller’s own access token, shown nowhere', () => {
  const value = 'eyJhbGciOiJSUzI1NiJ9.the-callers-token.sig';
  const caller = { keyId: 'oauth:agent', tenant: 'acme', user: 'alice', subjectToken: new SubjectToken(value) };

  it('is read only by reveal(); JSON, inspect, string and a spread copy all show [REDACTED]', () => {
    expect(caller.subjectToken.reveal()).toBe(value);
    expect(JSON.stringify(caller)).not.toContain(value);
    expect(JSON.stringify(caller)).toContain('"subjectToken":"[REDACTED]"');
    expect(inspect(caller, { depth: 5, showHidden: true })).not.toContain(value);
    expect(`${caller.subjectToken}`).toBe('[REDACTED]');
    const copy = { ...caller };
    expect(copy.subjectToken.reveal()).toBe(value);
    expect(JSON.stringify(copy)).not.toContain(value);
  });

  it('a log line of the caller holds no token', () => {
    const lines: string[] = [];
    pino({}, { write: (line: string) => void lines.push(line) }).info({ caller }, 'a call');
    expect(lines.join('')).not.toContain(value);
  });
});
