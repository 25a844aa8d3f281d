import type { ContentBlock } from '../protocol/content.js';
import type { CallError } from '../protocol/errors.js';
import { isRecord } from '../protocol/json.js';
import { counted } from '../shared/count.js';
import type { RedactionCounts, SecretScanner } from './scanner.js';
import { redactStream } from './stream.js';

/** What of a call's output leaves the gateway: a tool's answer, or the result of a failed call. */
interface Output {
  text: string;
  content?: ContentBlock[];
  data?: unknown;
  error?: CallError;
}

/** Content for the spill store, as a tool hands it over. */
type SpillContent = string | Buffer | AsyncIterable<Buffer>;

/** The one line a model reads above a redacted output. */
function redactionNote(counts: RedactionCounts): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const kinds = Object.keys(counts).sort().join(', ');
  return `[${counted(total, 'value')} that looked like credentials (${kinds}) ${total === 1 ? 'was' : 'were'} redacted before this output reached you: each shows as [REDACTED:<kind>], and Edit cannot match text that holds one]`;
}

/** Adds `found` to `into`, per kind the larger count: a cut output's head and its spilled whole hold the same credentials. */
function mergeCounts(into: RedactionCounts, found: RedactionCounts): void {
  for (const [kind, count] of Object.entries(found)) into[kind] = Math.max(into[kind] ?? 0, count);
}

/**
 * Blocks with their text scanned: an embedded resource's `text` reaches the
 * model as text does. Base64 payloads (images, audio, blobs) are not text and
 * pass as they are.
 */
function redactBlocks(scanner: SecretScanner, content: ContentBlock[], counts: RedactionCounts): ContentBlock[] {
  return content.map((block) => ('text' in block ? (scanner.redactValue(block, counts) as ContentBlock) : block));
}

/**
 * `output` with every credential in its text, content blocks' text, data and error replaced by its
 * marker; when any was, its text starts with the note line and its data (an
 * object, or none) holds `redactions`, what was redacted by kind. `spilled`
 * counts what the tool's own spill held (see guardSpill), counted with the
 * rest. The same object when nothing was redacted.
 */
export function redactOutput<T extends Output>(
  scanner: SecretScanner,
  output: T,
  spilled: RedactionCounts = {},
): { output: T; counts?: RedactionCounts } {
  const counts: RedactionCounts = {};
  const { text, counts: inText } = scanner.redact(output.text);
  if (inText) Object.assign(counts, inText);
  const data = output.data === undefined ? undefined : scanner.redactValue(output.data, counts);
  const error = output.error === undefined ? undefined : (scanner.redactValue(output.error, counts) as CallError);
  const content = output.content === undefined ? undefined : redactBlocks(scanner, output.content, counts);
  mergeCounts(counts, spilled);
  if (Object.keys(counts).length === 0) return { output };
  const redacted: T = { ...output, text: `${redactionNote(counts)}\n${text}` };
  if (content !== undefined) redacted.content = content;
  if (data === undefined) redacted.data = { redactions: counts };
  else redacted.data = isRecord(data) && !Array.isArray(data) ? { ...data, redactions: counts } : data;
  if (error !== undefined) redacted.error = error;
  return { output: redacted, counts };
}

/**
 * A tool's spill with what it stores redacted first, a stream as it streams
 * (see redactStream): `/outputs` serves only what a model may read. What
 * was redacted is added to `counts`.
 */
export function guardSpill<R>(
  scanner: SecretScanner,
  spill: (content: SpillContent) => Promise<R>,
  counts: RedactionCounts,
): (content: SpillContent) => Promise<R> {
  return (content) => {
    if (typeof content === 'string') {
      const redacted = scanner.redact(content);
      if (redacted.counts) mergeCounts(counts, redacted.counts);
      return spill(redacted.text);
    }
    const found: RedactionCounts = {};
    const source = Buffer.isBuffer(content) ? [content] : content;
    return spill(
      (async function* () {
        yield* redactStream(
          scanner,
          (async function* () {
            yield* source;
          })(),
          found,
        );
        mergeCounts(counts, found);
      })(),
    );
  };
}
