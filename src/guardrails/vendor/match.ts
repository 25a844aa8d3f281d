import { entropy, type Hit } from '../rules.js';
import type { Allowlist, VendorRule, VendorRules } from './rule-file.js';

function lineOf(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to < 0 ? text.length : to);
}

function allowed(list: Allowlist, secret: string, match: () => string, line: () => string): boolean {
  if (list.stopwords.length > 0) {
    const lower = secret.toLowerCase();
    if (list.stopwords.some((word) => lower.includes(word))) return true;
  }
  if (list.regexes.length === 0) return false;
  const target = list.target === 'secret' ? secret : list.target === 'match' ? match() : line();
  return list.regexes.some((re) => re.test(target));
}

export function allowedBy(
  rules: VendorRules,
  lists: readonly Allowlist[],
  text: string,
  start: number,
  end: number,
  matchStart: number,
): boolean {
  const secret = text.slice(start, end);
  const match = () => text.slice(matchStart, end);
  const line = () => lineOf(text, start, end);
  return allowed(rules.allowlist, secret, match, line) || lists.some((list) => allowed(list, secret, match, line));
}

const RANDOM_REST = 20;

/**
 * Whether the generic rule's allowlists allow a value the name rule found: its regexes as they are; its stopwords
 * unless they all sit in a prefix before RANDOM_REST random characters (`django-insecure-…` stays a secret).
 */
export function allowedByName(rules: VendorRules, text: string, start: number, end: number, nameStart: number): boolean {
  const value = text.slice(start, end).toLowerCase();
  // A vendor's prefix makes the value that vendor's format: one its rule refused is malformed or an example.
  if (rules.prefixes.some((prefix) => value.startsWith(prefix))) return true;
  const regexesOnly = rules.generic.map((list) => ({ ...list, stopwords: [] }));
  if (allowedBy(rules, regexesOnly, text, start, end, nameStart)) return true;
  let last = -1;
  for (const list of rules.generic) {
    for (const word of list.stopwords) {
      const at = value.lastIndexOf(word);
      if (at >= 0) last = Math.max(last, at + word.length);
    }
  }
  if (last < 0) return false;
  const rest = value.slice(last);
  return !(/^[-_.]/.test(rest) && rest.length > RANDOM_REST);
}

/** As gitleaks: the value is `secretGroup`, else the first group that matched, else the whole match; entropy and allowlists apply. */
export function findVendor(rules: VendorRules, rule: VendorRule, text: string, from: number, push: (hit: Hit) => void): void {
  const re = rule.pattern;
  re.lastIndex = from;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    const indices = m.indices!;
    let group = rule.secretGroup;
    if (group === 0) for (let g = 1; g < m.length && group === 0; g++) if (m[g]) group = g;
    const [start, end] = (group > 0 && indices[group]) || indices[0]!;
    const secret = text.slice(start, end);
    if (rule.entropy > 0 && entropy(secret) <= rule.entropy) continue;
    const match = () => m[0];
    const line = () => lineOf(text, m.index, m.index + m[0].length);
    if (allowed(rules.allowlist, secret, match, line) || rule.allowlists.some((list) => allowed(list, secret, match, line))) continue;
    push({ kind: rule.kind, start, end, extent: m.index + m[0].length });
  }
}
