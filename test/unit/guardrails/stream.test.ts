import { describe, expect, it } from 'vitest';
import { createSecretScanner, redactStream } from '../../../src/guardrails/index.js';
import { FAKE_SECRETS, random } from '../../helpers/fake-secrets.js';

const scanner = createSecretScanner();

async function* chunked(data: Buffer, size: number, pulled?: { count: number }): AsyncIterable<Buffer> {
  for (let at = 0; at < data.length; at += size) {
    if (pulled) pulled.count++;
    yield data.subarray(at, at + size);
  }
}

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

/** About `bytes` of log lines with every fake credential placed at random offsets, some inside long lines. */
function output(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const fake = FAKE_SECRETS[i % FAKE_SECRETS.length]!;
    const line =
      i % 7 === 0 ? `${random('abcdefghij ', 50_000)} ${fake.text}` : `${random('abcdefghijklmnop ', 200 + (i % 300))}\n${fake.text}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

describe('redactStream', () => {
  it('redacts a stream exactly as the whole text, whatever the chunk sizes, secrets split across chunks and rounds included', async () => {
    const text = output(3_000_000);
    const whole = scanner.redact(text);
    for (const size of [1_000_003, 65_536, 4_099]) {
      const counts = {};
      const streamed = await collect(redactStream(scanner, chunked(Buffer.from(text, 'latin1'), size), counts));
      expect(streamed.toString('latin1') === whole.text).toBe(true);
      expect(counts).toEqual(whole.counts);
    }
    for (const fake of FAKE_SECRETS) expect(whole.text).not.toContain(fake.secret);
  });

  it('catches a credential split at every offset of a chunk boundary', async () => {
    for (const fake of FAKE_SECRETS.filter((f) => f.text.length < 400)) {
      const data = Buffer.from(`x ${fake.text} y`);
      for (let split = 1; split < data.length; split++) {
        const source = (async function* () {
          yield data.subarray(0, split);
          yield data.subarray(split);
        })();
        expect((await collect(redactStream(scanner, source, {}))).toString()).toBe(scanner.redact(data.toString()).text);
      }
    }
  });

  it('holds a bounded part of the stream: output comes long before a 20 MB source ends', async () => {
    const pulled = { count: 0 };
    const iterator = redactStream(scanner, chunked(Buffer.alloc(20 * 1024 * 1024, 'a line of output\n'), 64 * 1024, pulled), {})[
      Symbol.asyncIterator
    ]();
    await iterator.next();
    // About 1.1 M characters make a round: 18 chunks of 64 KB, out of 320.
    expect(pulled.count).toBeLessThanOrEqual(19);
    await iterator.return?.();
  });

  it('passes bytes that are not text through unchanged', async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
    expect((await collect(redactStream(scanner, chunked(bytes, 10_000), {}))).equals(bytes)).toBe(true);
  });
});
