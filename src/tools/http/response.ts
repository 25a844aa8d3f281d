import type { ToolContext, ToolOutput } from '../tool.js';
import { utf8Prefix } from '../utf8.js';

/** Characters of an upstream error body shown to the caller. */
const EXCERPT_CHARS = 512;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

function parseJson(text: string, contentType: string): { data?: unknown } {
  if (!JSON_MEDIA_TYPE.test(contentType)) return {};
  try {
    return { data: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/**
 * Read a 2xx body. Up to `maxBytes` it is returned whole (and parsed when it
 * is JSON). Past that, the head read so far and the rest of the stream go to
 * the spill store as they arrive, so memory holds about `maxBytes` at most,
 * and the caller gets the head with the spill record.
 */
export async function readBody(
  body: AsyncIterable<Buffer>,
  options: { maxBytes: number; contentType: string; spill: ToolContext['spill'] },
): Promise<ToolOutput> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  while (size <= options.maxBytes) {
    const next = await iterator.next();
    if (next.done) {
      const text = Buffer.concat(head, size).toString('utf8');
      return { text, ...parseJson(text, options.contentType) };
    }
    head.push(next.value);
    size += next.value.length;
  }
  const text = utf8Prefix(Buffer.concat(head, size), options.maxBytes);
  const whole = async function* () {
    // Hand the head over chunk by chunk, letting go of each once written.
    while (head.length > 0) yield head.shift()!;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  const record = await options.spill(whole());
  return { text, partial: true, spilled: { originalBytes: record.bytes, record } };
}

/** The first `EXCERPT_CHARS` characters of an error body; the rest is not read. */
export async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // 4 bytes is the longest UTF-8 character, so this many bytes always hold enough characters.
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= EXCERPT_CHARS * 4) break;
  }
  return [...Buffer.concat(chunks, size).toString('utf8')].slice(0, EXCERPT_CHARS).join('');
}
