import { applyHits, MAX_MATCH_CHARS, type RedactionCounts, type SecretScanner } from './scanner.js';

/** Characters scanned per round past the held-back tail: the tail is read again by the next round, so a round must be much longer. */
const ROUND_CHARS = 1024 * 1024;
/** Characters already sent that a round keeps in front of the rest: what a credential's name or prefix needs. */
const CONTEXT_CHARS = 1024;

/**
 * `source` with every credential replaced by its marker, as it streams: a
 * spilled output is never held whole. Each round scans what has arrived and
 * sends all of it but the last MAX_MATCH_CHARS, the longest a credential can
 * be, so one split across chunks (or rounds) is still seen whole by a later
 * round; memory stays about ROUND_CHARS + MAX_MATCH_CHARS plus a chunk.
 * Bytes are read as latin1, one character each: every rule matches ASCII
 * only, and whatever is not a credential (binary output included) goes
 * through byte for byte. `counts` is filled as the stream is read.
 */
export function redactStream(scanner: SecretScanner, source: AsyncIterable<Buffer>, counts: RedactionCounts): AsyncIterable<Buffer> {
  return (async function* () {
    let pending = '';
    // How many leading characters of `pending` were already sent: read, never sent again.
    let sent = 0;
    for await (const chunk of source) {
      pending += chunk.toString('latin1');
      if (pending.length - sent < ROUND_CHARS + MAX_MATCH_CHARS) continue;
      const cut = pending.length - MAX_MATCH_CHARS;
      const hits = scanner.scan(pending, sent).filter((hit) => hit.start < cut);
      // A credential that starts before the cut is sent whole, with the part of it past the cut.
      const until = Math.max(cut, hits.at(-1)?.end ?? 0);
      yield Buffer.from(applyHits(pending, hits, counts, sent, until), 'latin1');
      const keep = Math.max(0, until - CONTEXT_CHARS);
      pending = pending.slice(keep);
      sent = until - keep;
    }
    if (pending.length > sent) yield Buffer.from(applyHits(pending, scanner.scan(pending, sent), counts, sent), 'latin1');
  })();
}
