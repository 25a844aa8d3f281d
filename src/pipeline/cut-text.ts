/** Where a cut output ends: whole lines, then a note line saying how to get the rest (resume hint, url, or none kept). */
import { cutOutsideMarkers } from '../guardrails/index.js';
import type { TruncationRecord } from '../protocol/result.js';
import { counted } from '../shared/count.js';

/** A tool's way to resume a cut output (`Tool.resumeHint`), e.g. "cut after line 120: call Read with offset=121 to continue". */
export type ResumeHint = (kept: string, rest: string) => string | undefined;

type VisibleRecord = Pick<TruncationRecord, 'url' | 'original_bytes'>;

export function literalBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}

/** How the note names the whole output: its url, or, when the spill store failed, that there is none. */
function wholeOutput(record: VisibleRecord): string {
  return record.url === null ? 'the whole output was not kept, the spill store failed' : `GET ${record.url} for the whole output`;
}

/** The note line a cut ends with: the tool's resume hint where it has one for this cut, and the url of the whole output. */
function noteFor(kept: string, rest: string, record: VisibleRecord, hint: ResumeHint | undefined, midLine: boolean): string {
  const whole = `${wholeOutput(record)} (${counted(record.original_bytes, 'byte')})`;
  const tool = midLine ? undefined : hint?.(kept, rest);
  if (tool !== undefined) return `[${tool}, or ${whole}]`;
  if (kept === '') return `[cut before line 1: ${whole}]`;
  const lines = kept.split('\n').length;
  return `[cut ${midLine ? 'inside' : 'after'} line ${lines}: ${whole}]`;
}

function joined(kept: string, note: string): string {
  return kept === '' ? note : `${kept}\n${note}`;
}

/** `text` without the note an earlier cut ended it with: a deeper cut cuts the output, not the old note. */
function withoutNote(text: string, record: VisibleRecord): string {
  const start = text.lastIndexOf('\n') + 1;
  const last = text.slice(start);
  const isNote = last.startsWith('[') && last.endsWith(']') && last.includes(wholeOutput(record));
  return isNote ? text.slice(0, Math.max(0, start - 1)) : text;
}

export function hasNote(text: string, record: VisibleRecord): boolean {
  return withoutNote(text, record) !== text;
}

/**
 * The longest cut of `text` whose JSON literal takes at most `maxBytes`; '' when not even the note fits. Only when no whole line
 * fits and the tool has no resume hint does the cut fall inside the first line, at a character boundary.
 */
export function cutText(text: string, maxBytes: number, record: VisibleRecord, hint: ResumeHint | undefined): string {
  const body = withoutNote(text, record);
  const fits = (candidate: string) => literalBytes(candidate) <= maxBytes;
  // A text that is the whole output (only `data` had to go) needs no note; a tool's own cut is not whole.
  if (Buffer.byteLength(body, 'utf8') >= record.original_bytes && fits(body)) return body;
  // No line end past maxBytes can fit: each code unit takes at least one byte.
  const ends = [0];
  for (let nl = body.indexOf('\n'); nl !== -1 && nl <= maxBytes; nl = body.indexOf('\n', nl + 1)) ends.push(nl);
  const at = (i: number) => {
    const kept = body.slice(0, ends[i]);
    return joined(kept, noteFor(kept, body.slice(ends[i]! + (i === 0 ? 0 : 1)), record, hint, false));
  };
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(at(mid))) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) return at(lo);
  if (hint === undefined) {
    const first = body.slice(0, ends[1] ?? body.length);
    const midLine = longestPrefix(first, maxBytes, (kept) => fits(joined(kept, noteFor(kept, '', record, hint, true))));
    if (midLine !== '') return joined(midLine, noteFor(midLine, '', record, hint, true));
  }
  return fits(at(0)) ? at(0) : '';
}

/** The longest prefix of `text` that `fits`, never inside a surrogate pair or a redaction marker. */
function longestPrefix(text: string, maxBytes: number, fits: (prefix: string) => boolean): string {
  let lo = 0;
  let hi = Math.min(text.length, maxBytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(text.slice(0, cutOutsideMarkers(text, mid)))) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, cutOutsideMarkers(text, lo));
}
