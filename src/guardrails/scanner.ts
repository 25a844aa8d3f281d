import type { RE2JS } from 're2js';
import { findAssignments, findUrlPasswords, secretNameKind, looksSecret } from './assignment.js';
import { PATTERN_RULES, type Hit } from './rules.js';

/** What a credential is replaced by: the model learns what kind of value was there, never any of it. */
export function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** A marker as it appears in text a model echoes back (Edit's `old_string`). */
export const MARKER = /\[REDACTED:[a-z0-9_]{1,40}\]/;

/** Credentials redacted, by kind. */
export type RedactionCounts = Record<string, number>;

/** The longest text one match can span (a PEM block of 400 lines is the longest): what a stream holds back. */
export const MAX_MATCH_CHARS = 96 * 1024;

/** How far before `from` a scan looks for the name or prefix of a credential that starts at or after it. */
const LOOKBACK = 256;

export interface SecretScanner {
  /**
   * The credentials of `text` whose replaced part starts at or after `from`,
   * in order, none overlapping; the text before `from` is read only as what
   * precedes them (a stream's part already sent).
   */
  scan(text: string, from?: number): Hit[];
  /** `text` with each credential replaced by its marker; `counts` is absent when there was none. */
  redact(text: string): { text: string; counts?: RedactionCounts };
  /**
   * A JSON value with every string redacted, and every string under a secret-naming key that looks like one; the same object when nothing
   * was.
   */
  redactValue(value: unknown, counts: RedactionCounts): unknown;
}

/** Kept from a quoted JSON value at any depth, and past it the value is redacted as its JSON text. */
const MAX_DEPTH = 256;

/** Applies `hits` (in order, not overlapping) to `text`, counting them. */
export function applyHits(text: string, hits: readonly Hit[], counts: RedactionCounts, from = 0, to = text.length): string {
  let out = '';
  let at = from;
  for (const hit of hits) {
    out += text.slice(at, hit.start) + marker(hit.kind);
    counts[hit.kind] = (counts[hit.kind] ?? 0) + 1;
    at = hit.end;
  }
  return out + text.slice(at, to);
}

/**
 * The scanner of one configuration: the rules, less every value an `allow`
 * pattern matches (RE2, as policy patterns: any part of the value may match).
 */
export function createSecretScanner(allow: readonly RE2JS[] = []): SecretScanner {
  const allowed = (text: string, hit: Hit) => allow.length > 0 && allow.some((re) => re.test(text.slice(hit.start, hit.end)));

  function scan(text: string, from = 0): Hit[] {
    const found: Array<Hit & { rank: number }> = [];
    const push = (rank: number) => (hit: Hit) => {
      if (hit.start >= from && !allowed(text, hit)) found.push({ ...hit, rank });
    };
    const searchFrom = Math.max(0, from - LOOKBACK);
    PATTERN_RULES.forEach((rule, rank) => {
      // The keyword pre-filter: a plain search per keyword costs a fraction of any regular expression.
      if (!rule.keywords.some((keyword) => text.includes(keyword))) return;
      const add = push(rank);
      rule.pattern.lastIndex = searchFrom;
      for (let m = rule.pattern.exec(text); m !== null; m = rule.pattern.exec(text)) {
        const value = m[1] ?? m[0];
        const extent = m.index + m[0].length;
        // Group 1, where a rule has one, is the match's last part before at most one closing quote.
        const end = m[1] === undefined ? extent : extent - (m[0].endsWith(value) ? 0 : 1);
        if (!rule.accept || rule.accept(value)) add({ kind: rule.kind, start: end - value.length, end, extent });
      }
    });
    if (text.includes('://')) findUrlPasswords(text, searchFrom, push(PATTERN_RULES.length));
    findAssignments(text, searchFrom, push(PATTERN_RULES.length + 1));
    if (found.length === 0) return [];
    // Where two overlap, the one starting first wins; at one start, the longer, then the more specific rule.
    found.sort((a, b) => a.start - b.start || b.end - a.end || a.rank - b.rank);
    const hits: Hit[] = [];
    let end = -1;
    for (const { rank: _rank, ...hit } of found) {
      if (hit.start < end) continue;
      hits.push(hit);
      end = hit.end;
    }
    return hits;
  }

  function redact(text: string): { text: string; counts?: RedactionCounts } {
    const hits = scan(text);
    if (hits.length === 0) return { text };
    const counts: RedactionCounts = {};
    return { text: applyHits(text, hits, counts), counts };
  }

  function redactString(text: string, counts: RedactionCounts): string {
    const hits = scan(text);
    return hits.length === 0 ? text : applyHits(text, hits, counts);
  }

  function redactValue(value: unknown, counts: RedactionCounts, depth = 0): unknown {
    if (typeof value === 'string') return redactString(value, counts);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) return redactDeep(value, counts);
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      value.forEach((item, i) => {
        const redacted = redactValue(item, counts, depth + 1);
        if (redacted !== item) (copy ??= value.slice())[i] = redacted;
      });
      return copy ?? value;
    }
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      let redacted = redactValue(item, counts, depth + 1);
      const kind = typeof redacted === 'string' ? secretNameKind(key) : undefined;
      if (kind && looksSecret(redacted as string, kind === 'password') && !allow.some((re) => re.test(redacted as string))) {
        counts[kind] = (counts[kind] ?? 0) + 1;
        redacted = marker(kind);
      }
      if (redacted !== item) (copy ??= { ...value })[key] = redacted;
    }
    return copy ?? value;
  }

  /** A value nested past MAX_DEPTH: redacted as its JSON text, which the rules read as they read any JSON. */
  function redactDeep(value: object, counts: RedactionCounts): unknown {
    const json = JSON.stringify(value);
    const hits = scan(json);
    if (hits.length === 0) return value;
    try {
      return JSON.parse(applyHits(json, hits, counts)) as unknown;
    } catch {
      return marker('secret');
    }
  }

  return { scan, redact, redactValue: (value, counts) => redactValue(value, counts) };
}
