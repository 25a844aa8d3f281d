import { describe, expect, it } from 'vitest';
import { createSecretScanner, marker, redactStream } from '../../../src/guardrails/index.js';
import { decodeText } from '../../../src/shared/decode-text.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';

const scanner = createSecretScanner();
const cases = FAKE_SECRETS.map((fake) => [fake.kind, fake] as const);

/** `text` as UTF-16 bytes of `order`, with or without a byte-order mark. */
function utf16(text: string, order: 'le' | 'be', bom: boolean): Buffer {
  const bytes = Buffer.from(`${bom ? '\ufeff' : ''}${text}`, 'utf16le');
  return order === 'le' ? bytes : bytes.swap16();
}

/** Reads UTF-16 bytes of `order` back as text. */
const fromUtf16 = (bytes: Buffer, order: 'le' | 'be') => (order === 'le' ? bytes : Buffer.from(bytes).swap16()).toString('utf16le');

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

async function* once(bytes: Buffer): AsyncIterable<Buffer> {
  yield bytes;
}

describe('every encoding of the whole fake-credential corpus is redacted where it stands', () => {
  it.each(cases)('a %s in a JSON string after an escape stays valid JSON, the value gone', (_kind, fake) => {
    // A one-line JSON log: the credential follows a \n, a \t, or a \" escape, as in a JSON file read whole.
    const json = JSON.stringify({ log: `started\n${fake.text}\tok`, quoted: `say "${fake.text}"` });
    const { text, counts } = scanner.redact(json);
    expect(text).not.toContain(fake.secret);
    expect(counts?.[fake.kind]).toBeGreaterThanOrEqual(1);
    const parsed = JSON.parse(text) as { log: string; quoted: string };
    expect(parsed.log).toContain(marker(fake.kind));
    expect(`${parsed.log}${parsed.quoted}`).not.toContain(fake.secret);
  });

  it.each(cases)('a %s with \\u escapes (every character of its text spelt \\u00XX) is redacted, the JSON still valid', (_kind, fake) => {
    const escaped = [...fake.text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const json = `{"a": "x\\n${escaped}"}`;
    const { text, counts } = scanner.redact(json);
    expect(counts?.[fake.kind]).toBeGreaterThanOrEqual(1);
    const parsed = JSON.parse(text) as { a: string };
    expect(parsed.a).not.toContain(fake.secret);
    expect(parsed.a).toContain(marker(fake.kind));
  });

  it.each(cases)('a %s escaped twice (JSON in a JSON string) is redacted', (_kind, fake) => {
    const json = JSON.stringify({ body: JSON.stringify({ log: `x\n${fake.text}` }) });
    const { text } = scanner.redact(json);
    const inner = JSON.parse((JSON.parse(text) as { body: string }).body) as { log: string };
    expect(inner.log).not.toContain(fake.secret);
    expect(inner.log).toContain(marker(fake.kind));
  });

  it.each(cases)('a %s percent-encoded in a URL and a form body is redacted, the URL still a URL', (_kind, fake) => {
    const url = `https://hooks.example.test/cb?state=1&data=${encodeURIComponent(`token=${fake.text}`)}`;
    const form = `grant=1&v=${encodeURIComponent(fake.text)}`;
    for (const encoded of [url, form, `GET /cb?token%3D${encodeURIComponent(fake.text)}`]) {
      const { text, counts } = scanner.redact(encoded);
      expect(counts?.[fake.kind] ?? counts?.secret).toBeGreaterThanOrEqual(1);
      expect(decodeURIComponent(text)).not.toContain(fake.secret);
      expect(text).not.toContain(encodeURIComponent(fake.secret));
    }
    const { text } = scanner.redact(url);
    expect(new URL(text).searchParams.get('state')).toBe('1');
    expect(new URL(text).searchParams.get('data')).toContain('[REDACTED:');
  });

  for (const order of ['le', 'be'] as const) {
    for (const bom of [true, false]) {
      it.each(cases)(
        `a %s in UTF-16${order.toUpperCase()} ${bom ? 'with' : 'without'} a byte-order mark, read as bytes, stays UTF-16`,
        async (_kind, fake) => {
          const bytes = utf16(`line one\n${fake.text}\nline three\n`, order, bom);
          // A tool's text read as bytes (latin1), and a spilled stream.
          const { text, counts } = scanner.redact(bytes.toString('latin1'));
          expect(counts?.[fake.kind]).toBeGreaterThanOrEqual(1);
          const back = fromUtf16(Buffer.from(text, 'latin1'), order);
          expect(back).not.toContain(fake.secret);
          expect(back).toContain(marker(fake.kind));
          expect(back).toContain('line one\n');
          expect(back.endsWith('line three\n')).toBe(true);
          const streamed = await collect(redactStream(scanner, once(bytes), {}));
          expect(streamed.toString('latin1')).toBe(text);
          // Where bytes enter as a command's output, they are decoded as UTF-16 before anything reads them.
          const decoded = decodeText(bytes, bytes.length);
          expect(decoded).toBe(`line one\n${fake.text}\nline three\n`);
          expect(scanner.redact(decoded).text).not.toContain(fake.secret);
        },
      );
    }
  }

  it('leaves text with escapes but no credential as it is, byte for byte', () => {
    for (const text of ['{"a": "b\\n\\t\\u0041\\\\"}', 'GET /search?q=100%25%20sure&x=%2F', 'C:\\new\\token\\file.txt']) {
      expect(scanner.redact(text)).toEqual({ text });
    }
  });
});
