import { marker, MARKER, type RedactionCounts, type SecretScanner } from './scanner.js';

/**
 * A text as a model may see it, with where each redaction sits in the raw text and in the view. A tool that matches
 * content (Grep, Glob, Edit's old_string) matches the view, never the raw text, so a match tells nothing of a hidden value.
 */
interface RedactedView {
  text: string;
  spans: readonly Span[];
}

interface Span {
  kind: string;
  raw: number;
  rawEnd: number;
  view: number;
  viewEnd: number;
}

export function redactedView(scanner: SecretScanner | undefined, raw: string): RedactedView {
  const hits = scanner ? scanner.scan(raw) : [];
  if (hits.length === 0) return { text: raw, spans: [] };
  const spans: Span[] = [];
  let text = '';
  let at = 0;
  for (const hit of hits) {
    text += raw.slice(at, hit.start);
    const shown = hit.replacement ?? marker(hit.kind);
    spans.push({ kind: hit.kind, raw: hit.start, rawEnd: hit.end, view: text.length, viewEnd: text.length + shown.length });
    text += shown;
    at = hit.end;
  }
  return { text: text + raw.slice(at), spans };
}

export function viewCounts(view: RedactedView, counts: RedactionCounts = {}, end = view.text.length): RedactionCounts {
  for (const span of view.spans) if (span.viewEnd <= end) counts[span.kind] = (counts[span.kind] ?? 0) + 1;
  return counts;
}

export function overlapsRedaction(view: RedactedView, from: number, to: number): boolean {
  return view.spans.some((span) => span.view < to && from < span.viewEnd);
}

/**
 * Whether `after`, a change of the view's raw text, leaves a redacted value readable: each value, moved by `moved`,
 * must lie wholly inside what `after`'s scan redacts (a renamed name or a glued character can change how it reads).
 */
export function unmasks(scanner: SecretScanner, view: RedactedView, after: string, moved: (raw: number) => number): boolean {
  if (view.spans.length === 0) return false;
  const hits = scanner.scan(after);
  return view.spans.some((span) => {
    let at = moved(span.raw);
    const end = at + (span.rawEnd - span.raw);
    for (const hit of hits) if (hit.start <= at && hit.end > at) at = hit.end;
    return at < end;
  });
}

export function rawOffset(view: RedactedView, at: number): number {
  let shift = 0;
  for (const span of view.spans) {
    if (span.viewEnd > at) break;
    shift = span.rawEnd - span.viewEnd;
  }
  return at + shift;
}

/** Where a cut at `max` may fall: never inside a marker nor a surrogate pair. Cut after the scan, never before. */
export function cutOutsideMarkers(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const near = new RegExp(MARKER.source, 'g');
  near.lastIndex = Math.max(0, max - 64);
  for (let m = near.exec(text); m !== null && m.index < max; m = near.exec(text)) {
    if (m.index + m[0].length > max) return m.index;
  }
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

export function redactThenCut(scanner: SecretScanner | undefined, text: string, max: number, counts: RedactionCounts): string {
  const view = redactedView(scanner, text);
  const cut = cutOutsideMarkers(view.text, max);
  viewCounts(view, counts, cut);
  return view.text.slice(0, cut);
}

/** The first `maxBytes` of a stream's `head`, scanned whole, then cut at a character, never inside a marker. */
export function redactedHead(scanner: SecretScanner, head: Buffer, maxBytes: number, counts: RedactionCounts): string {
  const view = redactedView(scanner, head.toString('utf8'));
  const bytes = Buffer.from(view.text, 'utf8');
  let end = Math.min(maxBytes, bytes.length);
  if (end < bytes.length) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const cut = cutOutsideMarkers(view.text, bytes.toString('utf8', 0, end).length);
  viewCounts(view, counts, cut);
  return view.text.slice(0, cut);
}

interface RedactedLines {
  lines: string[];
  kinds: ReadonlyMap<number, readonly string[]>;
}

/** `raw`'s lines as a model may see them, scanned whole (a PEM block spans lines); undefined when nothing is redacted. */
export function redactedLines(scanner: SecretScanner | undefined, raw: string): RedactedLines | undefined {
  const hits = scanner ? scanner.scan(raw) : [];
  if (hits.length === 0) return undefined;
  const lines = raw.split('\n');
  const kinds = new Map<number, string[]>();
  let h = 0;
  let start = 0;
  lines.forEach((line, i) => {
    const end = start + line.length;
    while (h < hits.length && hits[h]!.end <= start) h++;
    let shown = '';
    let at = start;
    for (let j = h; end > start && j < hits.length && hits[j]!.start < end; j++) {
      const hit = hits[j]!;
      shown += raw.slice(at, Math.max(at, hit.start)) + (hit.replacement ?? marker(hit.kind));
      at = Math.min(hit.end, end);
      kinds.set(i, [...(kinds.get(i) ?? []), hit.kind]);
    }
    if (shown !== '') lines[i] = shown + raw.slice(at, end);
    start = end + 1;
  });
  return { lines, kinds };
}
