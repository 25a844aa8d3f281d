import { redactedHead, redactThenCut, type RedactionCounts } from '../../guardrails/index.js';
import type { ToolContext, ToolOutput, ToolSecrets } from '../tool.js';
import { utf8Prefix } from '../../shared/decode-text.js';

/** Characters of an upstream error body shown to the caller. */
const EXCERPT_CHARS = 512;
/** Bytes of an error body read for the excerpt: its characters at 4 bytes and the longest one-line credential, so none is cut unscanned. */
const EXCERPT_SCAN_BYTES = EXCERPT_CHARS * 4 + 16 * 1024;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

function parseJson(text: string, contentType: string): { data?: unknown } {
  if (!JSON_MEDIA_TYPE.test(contentType)) return {};
  try {
    return { data: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/** Bytes of a body over its cap read past it, to scan the head with before the cut: the longest credential on one line. */
const SCANNED_PAST_CAP = 16 * 1024;

/**
 * Read a 2xx body: whole (parsed when JSON) up to `maxBytes`; past it the head and the rest stream to the spill store, so memory holds about
 * `maxBytes`, and with `secrets` the head is scanned with SCANNED_PAST_CAP more bytes before the cut.
 */
export async function readBody(
  body: AsyncIterable<Buffer>,
  options: { maxBytes: number; contentType: string; spill: ToolContext['spill']; secrets?: ToolSecrets },
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
  const { secrets } = options;
  // Past the cap: read on to SCANNED_PAST_CAP more, which the spill gets with the rest, in order.
  for (let next = secrets && size < options.maxBytes + SCANNED_PAST_CAP ? await iterator.next() : undefined; next && !next.done;) {
    head.push(next.value);
    size += next.value.length;
    next = size < options.maxBytes + SCANNED_PAST_CAP ? await iterator.next() : undefined;
  }
  const counts: RedactionCounts = {};
  const whole = Buffer.concat(head, size);
  const text = secrets ? redactedHead(secrets.scanner, whole, options.maxBytes, counts) : utf8Prefix(whole, options.maxBytes);
  secrets?.count(counts);
  const rest = async function* () {
    while (head.length > 0) yield head.shift()!;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  const record = await options.spill(rest());
  return { text, partial: true, spilled: { originalBytes: record.bytes, record } };
}

/** The first `EXCERPT_CHARS` characters of an error body, scanned before the cut so no credential's start is left; the rest is not read. */
export async function readExcerpt(body: AsyncIterable<Buffer>, secrets: ToolSecrets | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= EXCERPT_SCAN_BYTES) break;
  }
  const counts: RedactionCounts = {};
  const excerpt = redactThenCut(secrets?.scanner, utf8Prefix(Buffer.concat(chunks, size), EXCERPT_SCAN_BYTES), EXCERPT_CHARS, counts);
  secrets?.count(counts);
  return excerpt;
}
