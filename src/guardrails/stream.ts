import { applyHits, MAX_MATCH_CHARS, type RedactionCounts, type SecretScanner } from './scanner.js';

const ROUND_CHARS = 1024 * 1024;
const CONTEXT_CHARS = 1024;

/**
 * `source` redacted as it streams: each round sends all but the last MAX_MATCH_CHARS, so a credential split across
 * chunks is seen whole by a later round. Bytes are read as latin1 (every rule matches ASCII), so the rest passes
 * byte for byte.
 */
export function redactStream(scanner: SecretScanner, source: AsyncIterable<Buffer>, counts: RedactionCounts): AsyncIterable<Buffer> {
  return (async function* () {
    let pending = '';
    let sent = 0;
    for await (const chunk of source) {
      pending += chunk.toString('latin1');
      if (pending.length - sent < ROUND_CHARS + MAX_MATCH_CHARS) continue;
      const cut = pending.length - MAX_MATCH_CHARS;
      const hits = scanner.scan(pending, sent).filter((hit) => hit.start < cut);
      // A credential that starts before the cut is sent whole.
      const until = Math.max(cut, hits.at(-1)?.end ?? 0);
      yield Buffer.from(applyHits(pending, hits, counts, sent, until), 'latin1');
      const keep = Math.max(0, until - CONTEXT_CHARS);
      pending = pending.slice(keep);
      sent = until - keep;
    }
    if (pending.length > sent) yield Buffer.from(applyHits(pending, scanner.scan(pending, sent), counts, sent), 'latin1');
  })();
}
