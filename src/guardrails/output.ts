import type { ContentBlock } from '../protocol/content.js';
import type { CallError } from '../protocol/errors.js';
import { isRecord } from '../protocol/json.js';
import { counted } from '../shared/count.js';
import type { RedactionCounts, SecretScanner } from './scanner.js';
import { redactStream } from './stream.js';

interface Output {
  text: string;
  content?: ContentBlock[];
  data?: unknown;
  error?: CallError;
}

type SpillContent = string | Buffer | AsyncIterable<Buffer>;

function redactionNote(counts: RedactionCounts): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const kinds = Object.keys(counts).sort().join(', ');
  return `[${counted(total, 'value')} that looked like credentials (${kinds}) ${total === 1 ? 'was' : 'were'} redacted before this output reached you: each shows as [REDACTED:<kind>], and Edit cannot match text that holds one]`;
}

/** Per kind the larger count: a cut output's head and its spilled whole hold the same credentials. */
function mergeCounts(into: RedactionCounts, found: RedactionCounts): void {
  for (const [kind, count] of Object.entries(found)) into[kind] = Math.max(into[kind] ?? 0, count);
}

/** Every text field of a block is scanned; base64 payloads (images, audio, blobs) pass as they are. */
function redactBlocks(scanner: SecretScanner, content: ContentBlock[], counts: RedactionCounts): ContentBlock[] {
  return content.map((block) => {
    const { data, ...fields } = block as ContentBlock & { data?: string };
    const redacted = scanner.redactValue(fields, counts);
    if (redacted === fields) return block;
    return (data === undefined ? redacted : { ...(redacted as object), data }) as ContentBlock;
  });
}

/**
 * `output` with every credential in its text, blocks, data and error replaced by its marker, the note line above and
 * `redactions` by kind in its data; `spilled` and `own` are counted with the rest. The same object when nothing was.
 */
export function redactOutput<T extends Output>(
  scanner: SecretScanner,
  output: T,
  spilled: RedactionCounts = {},
  own: RedactionCounts = {},
): { output: T; counts?: RedactionCounts } {
  const counts: RedactionCounts = { ...own };
  const { text, counts: inText } = scanner.redact(output.text);
  for (const [kind, count] of Object.entries(inText ?? {})) counts[kind] = (counts[kind] ?? 0) + count;
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

/** The spill redacted before it is stored, a stream as it streams: `/outputs` serves only what a model may read. */
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
