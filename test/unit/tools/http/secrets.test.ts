import { describe, expect, it } from 'vitest';
import { createScrubber, resolveHeaders } from '../../../../src/tools/http/secrets.js';

async function collect(source: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function* chunked(text: string, size: number): AsyncIterable<Buffer> {
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

describe('resolveHeaders', () => {
  it('fills ${VAR} from the environment and marks those headers secret', () => {
    const r = resolveHeaders(
      { Authorization: 'Bearer ${TOKEN}', 'X-Both': '${A}:${B}', Accept: 'application/json' },
      { TOKEN: 't0k', A: 'aa', B: 'bb' },
    );
    expect(r.headers).toEqual({ authorization: 'Bearer t0k', 'x-both': 'aa:bb', accept: 'application/json' });
    expect([...r.secretHeaders].sort()).toEqual(['authorization', 'x-both']);
    expect([...r.secrets].sort()).toEqual(['aa', 'bb', 't0k']);
  });

  it('names every unset or empty variable at once, and no values', () => {
    expect(() => resolveHeaders({ a: '${MISSING_ONE}', b: '${EMPTY}', c: '${SET}' }, { EMPTY: '', SET: 'value-xyz' })).toThrow(
      /MISSING_ONE.*EMPTY/,
    );
    expect(() => resolveHeaders({ a: '${MISSING_ONE}', c: '${SET}' }, { SET: 'value-xyz' })).not.toThrow(/value-xyz/);
  });

  it('refuses a value that would inject another header', () => {
    expect(() => resolveHeaders({ a: '${EVIL}' }, { EVIL: 'x\r\nx-admin: 1' })).toThrow(/EVIL.*line break/);
  });
});

describe('createScrubber', () => {
  const scrubber = createScrubber(['secret-token', 'tok']);

  it('replaces every occurrence, preferring the longer secret', async () => {
    expect(await collect(chunked('a secret-token b tok c', 1000))).toBe('a secret-token b tok c');
    expect(await collect(scrubber.stream(chunked('a secret-token b tok c', 1000)))).toBe('a [REDACTED] b [REDACTED] c');
  });

  it.each([1, 2, 3, 5, 7, 13])('finds secrets split across chunks of %i bytes', async (size) => {
    const text = `${'x'.repeat(11)}secret-token${'y'.repeat(5)}secret-tokensecret-token tok`;
    expect(await collect(scrubber.stream(chunked(text, size)))).toBe(
      `${'x'.repeat(11)}[REDACTED]${'y'.repeat(5)}[REDACTED][REDACTED] [REDACTED]`,
    );
  });

  it('passes the stream through untouched when there are no secrets', () => {
    const source = chunked('abc', 1);
    expect(createScrubber([]).stream(source)).toBe(source);
  });
});
