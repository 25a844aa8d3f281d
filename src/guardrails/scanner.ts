import type { RE2JS } from 're2js';
import { findAssignments, findUrlPasswords, looksSecret, NAME_KEYWORDS, secretNameKind, URL_KEYWORDS } from './assignment.js';
import { createKeywordIndex, type KeywordIndex } from './keywords.js';
import { PATTERN_RULES, type Hit, type PatternRule } from './rules.js';
import { allowedBy, allowedByName, findVendor, shippedRules, type VendorRules } from './vendor/index.js';
import { utf16Marker, viewIndex, viewsOf, type View } from './views.js';

/** The model learns what kind of value was there, never any of it. */
export function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

export const MARKER = /\[REDACTED:[a-z0-9_]{1,40}\]/;

export type RedactionCounts = Record<string, number>;

/** The longest text one match can span (a 400-line PEM block): what a stream holds back. */
export const MAX_MATCH_CHARS = 96 * 1024;

const LOOKBACK = 256;

export interface SecretScanner {
  /** The credentials whose replaced part starts at or after `from`, in order, none overlapping. */
  scan(text: string, from?: number): Hit[];
  redact(text: string): { text: string; counts?: RedactionCounts };
  /** Every string redacted, and every string under a secret-naming key that looks like one; the same object when nothing was. */
  redactValue(value: unknown, counts: RedactionCounts): unknown;
}

const MAX_DEPTH = 256;

export function applyHits(text: string, hits: readonly Hit[], counts: RedactionCounts, from = 0, to = text.length): string {
  let out = '';
  let at = from;
  for (const hit of hits) {
    out += text.slice(at, hit.start) + (hit.replacement ?? marker(hit.kind));
    counts[hit.kind] = (counts[hit.kind] ?? 0) + 1;
    at = hit.end;
  }
  return out + text.slice(at, to);
}

/** A key met again (two credentials redacted to one marker) takes ` #2`, ` #3`…. */
function withKeys(entries: ReadonlyArray<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    let name = key;
    for (let n = 2; Object.hasOwn(out, name); n++) name = `${key} #${n}`;
    out[name] = item;
  }
  return out;
}

interface Triggers {
  index: KeywordIndex;
  rules: number[][];
}

const triggersOf = new WeakMap<VendorRules, Triggers>();

function triggers(vendor: VendorRules): Triggers {
  let found = triggersOf.get(vendor);
  if (found === undefined) {
    const byKeyword = new Map<string, number[]>();
    const add = (keyword: string, rank: number) => {
      const key = keyword.toLowerCase();
      const list = byKeyword.get(key) ?? [];
      if (!list.includes(rank)) list.push(rank);
      byKeyword.set(key, list);
    };
    PATTERN_RULES.forEach((rule, rank) => rule.keywords.forEach((keyword) => add(keyword, rank)));
    vendor.rules.forEach((rule, i) => rule.keywords.forEach((keyword) => add(keyword, PATTERN_RULES.length + i)));
    const ranks = PATTERN_RULES.length + vendor.rules.length;
    URL_KEYWORDS.forEach((keyword) => add(keyword, ranks));
    NAME_KEYWORDS.forEach((keyword) => add(keyword, ranks + 1));
    found = { index: createKeywordIndex([...byKeyword.keys()]), rules: [...byKeyword.values()] };
    triggersOf.set(vendor, found);
  }
  return found;
}

function findPattern(rule: PatternRule, text: string, from: number, add: (hit: Hit) => void): void {
  rule.pattern.lastIndex = from;
  for (let m = rule.pattern.exec(text); m !== null; m = rule.pattern.exec(text)) {
    const value = m[1] ?? m[0];
    const extent = m.index + m[0].length;
    const end = m[1] === undefined ? extent : extent - (m[0].endsWith(value) ? 0 : 1);
    if (!rule.accept || rule.accept(value)) add({ kind: rule.kind, start: end - value.length, end, extent });
  }
}

/** The scanner of one configuration: its own rules and the rule file's, less every value an `allow` RE2 pattern matches. */
export function createSecretScanner(allow: readonly RE2JS[] = [], vendor: VendorRules = shippedRules()): SecretScanner {
  const allowed = (text: string, hit: Hit) => allow.length > 0 && allow.some((re) => re.test(text.slice(hit.start, hit.end)));
  const { index, rules: triggered } = triggers(vendor);
  const ranks = PATTERN_RULES.length + vendor.rules.length;

  function scanPlain(text: string, from: number, found: Array<Hit & { rank: number }>): void {
    // The rule file's global allowlist applies to every finding; a value never ends in a backslash (an escape's start).
    const push = (rank: number) => (candidate: Hit) => {
      let end = candidate.end;
      while (end > candidate.start && text[end - 1] === '\\') end--;
      const hit = { ...candidate, end };
      if (hit.start >= from && !allowed(text, hit) && !allowedBy(vendor, [], text, hit.start, hit.end, hit.start))
        found.push({ ...hit, rank });
    };
    const searchFrom = Math.max(0, from - LOOKBACK);
    // A text holding none of the rules' keywords (the common case) runs no pattern and is not searched for URLs or names.
    const ranksSeen = new Set<number>();
    for (const keyword of index.find(text, searchFrom)) for (const rank of triggered[keyword]!) ranksSeen.add(rank);
    const refuse = (start: number, end: number, nameStart: number) => allowedByName(vendor, text, start, end, nameStart);
    for (const rank of [...ranksSeen].sort((a, b) => a - b)) {
      if (rank < PATTERN_RULES.length) findPattern(PATTERN_RULES[rank]!, text, searchFrom, push(rank));
      else if (rank < ranks) findVendor(vendor, vendor.rules[rank - PATTERN_RULES.length]!, text, searchFrom, push(rank));
      else if (rank === ranks) findUrlPasswords(text, searchFrom, push(ranks));
      else findAssignments(text, searchFrom, push(ranks + 1), refuse);
    }
  }

  function scanView(text: string, view: View, from: number, found: Array<Hit & { rank: number }>): void {
    const inView: Array<Hit & { rank: number }> = [];
    scanPlain(view.text, viewIndex(view, from), inView);
    for (const hit of inView) {
      const start = view.map[hit.start]!;
      const end = view.map[hit.end]!;
      const placed = { ...hit, start, end, extent: view.map[hit.extent]! };
      if (view.utf16) placed.replacement = utf16Marker(text.slice(start, end), marker(hit.kind));
      found.push(placed);
    }
  }

  function scan(text: string, from = 0): Hit[] {
    const found: Array<Hit & { rank: number }> = [];
    scanPlain(text, from, found);
    for (const view of viewsOf(text)) scanView(text, view, from, found);
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
    // A key is text a model reads too: redacted as any string.
    const entries: Array<[string, unknown]> = [];
    let renamed = false;
    for (const [key, item] of Object.entries(value)) {
      let redacted = redactValue(item, counts, depth + 1);
      const kind = typeof redacted === 'string' ? secretNameKind(key) : undefined;
      if (kind && looksSecret(redacted as string, kind === 'password') && !allow.some((re) => re.test(redacted as string))) {
        counts[kind] = (counts[kind] ?? 0) + 1;
        redacted = marker(kind);
      }
      const shownKey = redactString(key, counts);
      renamed ||= shownKey !== key;
      entries.push([shownKey, redacted]);
      if (redacted !== item) (copy ??= { ...value })[key] = redacted;
    }
    return renamed ? withKeys(entries) : (copy ?? value);
  }

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
