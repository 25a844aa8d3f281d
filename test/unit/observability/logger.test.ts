import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, REDACTED, redactForLog, redactSecrets } from '../../../src/observability/logger.js';

describe('redactForLog', () => {
  it('replaces the values under secret-looking keys at any depth', () => {
    const args = { path: 'a.txt', headers: { Authorization: 'Bearer x', 'X-Api-Key': 'k' }, nested: [{ password: 'p', ok: 1 }] };
    expect(redactForLog(args)).toEqual({
      path: 'a.txt',
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED },
      nested: [{ password: REDACTED, ok: 1 }],
    });
  });

  it('cuts long strings, long arrays, objects with many keys and deep nesting', () => {
    expect(redactForLog('x'.repeat(300))).toBe(`${'x'.repeat(256)}…(300 chars)`);
    expect(redactForLog(Array.from({ length: 60 }, (_, i) => i))).toHaveLength(50);
    const wide = redactForLog(Object.fromEntries(Array.from({ length: 52 }, (_, i) => [`k${i}`, i]))) as Record<string, unknown>;
    expect(Object.keys(wide)).toHaveLength(51);
    expect(wide['…']).toBe('(2 more keys)');
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(JSON.stringify(redactForLog(deep))).toContain('"[…]"');
  });
});

describe('redactSecrets', () => {
  it('keeps strings up to the length it is given', () => {
    expect(redactSecrets({ text: 'y'.repeat(300), token: 't' }, 1_000)).toEqual({ text: 'y'.repeat(300), token: REDACTED });
  });
});

describe('loggerOptions', () => {
  it('never writes the headers that carry keys, and passes every line through the scrubber', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = pino(
      loggerOptions('info', (line) => line.replace('hunter2', '<scrubbed>')),
      sink,
    );
    log.info({ req: { headers: { authorization: 'Bearer k', cookie: 'c', 'x-api-key': 'a' } } }, 'hunter2 said hi');
    const line = JSON.parse(lines[0]!);
    expect(line.req.headers).toEqual({ authorization: REDACTED, cookie: REDACTED, 'x-api-key': REDACTED });
    expect(line).toMatchObject({ service: 'toolgate', msg: '<scrubbed> said hi' });
  });
});
