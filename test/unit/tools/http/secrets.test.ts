import { describe, expect, it } from 'vitest';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';
import { createScrubber, headerTemplates } from '../../../../src/tools/http/secrets.js';

/** Headers as start-up checks their `${VAR}` against the environment and a call then fills them. */
async function resolveHeaders(headers: Record<string, string>, env: NodeJS.ProcessEnv) {
  const provider = createEnvCredentials(env);
  const templates = headerTemplates(headers);
  const problems = templates.problems(provider);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return templates.fill(provider.for('a_tool'));
}

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
  it('fills ${VAR} from the environment and keeps the values to scrub', async () => {
    const r = await resolveHeaders(
      { Authorization: 'Bearer ${TOKEN}', 'X-Both': '${A}:${B}', Accept: 'application/json' },
      { TOKEN: 't0k', A: 'aa', B: 'bb' },
    );
    expect(r.headers).toEqual({ authorization: 'Bearer t0k', 'x-both': 'aa:bb', accept: 'application/json' });
    expect([...r.secrets].sort()).toEqual(['aa', 'bb', 't0k']);
  });

  it('names every unset or empty variable at once, and no values', async () => {
    await expect(resolveHeaders({ a: '${MISSING_ONE}', b: '${EMPTY}', c: '${SET}' }, { EMPTY: '', SET: 'value-xyz' })).rejects.toThrow(
      /MISSING_ONE.*EMPTY/,
    );
    await expect(resolveHeaders({ a: '${MISSING_ONE}', c: '${SET}' }, { SET: 'value-xyz' })).rejects.not.toThrow(/value-xyz/);
  });

  it('refuses a value that would inject another header', async () => {
    await expect(resolveHeaders({ a: '${EVIL}' }, { EVIL: 'x\r\nx-admin: 1' })).rejects.toThrow(/EVIL.*line break/);
  });
});

describe('headers with auth (the calling person’s token)', () => {
  const auth = { provider: 'corp', scopes: [] };
  const withToken = (tokens: string[], header = 'authorization', prefix = 'Bearer ') => {
    const env = createEnvCredentials({ KEY: 'k-1' }).for('a_tool');
    return {
      get: env.get,
      token: async () => {
        const token = tokens.shift()!;
        return { token, header, value: `${prefix}${token}` };
      },
    };
  };

  it('sends the token as Authorization: Bearer and keeps it to scrub; a new token is a new answer', async () => {
    const templates = headerTemplates({ 'X-Key': '${KEY}' }, auth);
    const credentials = withToken(['tok-alice', 'tok-alice', 'tok-bob']);
    const first = await templates.fill(credentials);
    expect(first.headers).toEqual({ 'x-key': 'k-1', authorization: 'Bearer tok-alice' });
    expect([...first.secrets].sort()).toEqual(['k-1', 'tok-alice']);
    expect(await templates.fill(credentials)).toBe(first);
    const third = await templates.fill(credentials);
    expect(third.headers.authorization).toBe('Bearer tok-bob');
    expect(third.secrets).not.toContain('tok-alice');
  });

  it('sends it in the header and with the prefix the provider names', async () => {
    const filled = await headerTemplates({}, auth).fill(withToken(['tok-1'], 'x-api-token', ''));
    expect(filled.headers).toEqual({ 'x-api-token': 'tok-1' });
    expect(filled.secrets).toEqual(['tok-1']);
  });

  it('refuses a configured authorization header beside auth', () => {
    expect(headerTemplates({ Authorization: 'Bearer ${KEY}' }, auth).problems(createEnvCredentials({ KEY: 'x' }))).toEqual([
      'header "authorization" and auth both set Authorization; remove one',
    ]);
  });

  it('passes AUTHORIZATION_REQUIRED on: the call does not run', async () => {
    const templates = headerTemplates({}, auth);
    await expect(templates.fill(createEnvCredentials({}).for('a_tool'))).rejects.toMatchObject({ code: 'AUTHORIZATION_REQUIRED' });
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
