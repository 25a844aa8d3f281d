/**
 * A rule file in gitleaks' format, loaded and compiled once at start-up; what of it is used is stated in
 * docs/guardrails.md. Rules that name files (`path`) and those of SUPERSEDED are skipped. A file that does not parse,
 * or a rule whose regex does not translate or compile, throws naming the file and the rule.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { re2ToJs } from './re2-to-js.js';

export interface Allowlist {
  target: 'secret' | 'match' | 'line';
  regexes: RegExp[];
  stopwords: string[];
}

export interface VendorRule {
  id: string;
  kind: string;
  keywords: string[];
  pattern: RegExp;
  secretGroup: number;
  entropy: number;
  allowlists: Allowlist[];
}

export interface VendorRules {
  rules: VendorRule[];
  allowlist: Allowlist;
  generic: Allowlist[];
  /** Keywords that are a token's prefix (`ghp_`, `xoxp-`): a value starting with one is judged by its rule alone. */
  prefixes: string[];
}

const PREFIX = /^[a-z0-9][a-z0-9_.-]{2,}[_.-]$/;

/** Rules the scanner's own make better: the generic assignment rule (its allowlists kept) and the PEM block. */
const SUPERSEDED = new Set(['generic-api-key', 'private-key']);

const NAME_RUN = '[\\w.-]{0,50}?';

/** `pattern` without its leading lazy run of name characters, which never changes what matches but costs 50 tries a position. */
function withoutNameRun(pattern: string): string {
  let rest = pattern;
  let head = '';
  for (;;) {
    if (rest.startsWith('(?i)') && head === '') [head, rest] = ['(?i)', rest.slice(4)];
    else if (rest.startsWith(NAME_RUN)) rest = rest.slice(NAME_RUN.length);
    else if (rest.startsWith(`(?i:${NAME_RUN}`)) rest = `(?i:${rest.slice(4 + NAME_RUN.length)}`;
    else return head + rest;
  }
}

const TOKEN_END = String.raw`(?:[\x60'"\s;]|\\[nr]|$)`;
/** TOKEN_END with the punctuation a token stands before in prose, markup, CSV and URLs; not `(`, `.` or `/`. */
const WIDER_END = String.raw`(?:[\x60'"\s;<>)\]},|&*!?]|\\[nr]|$)`;

function widerEnd(pattern: string): string {
  return pattern.endsWith(TOKEN_END) ? pattern.slice(0, -TOKEN_END.length) + WIDER_END : pattern;
}

function compileRe2(pattern: string, flags = ''): RegExp {
  const js = re2ToJs(pattern);
  return new RegExp(js.source, js.flags + flags);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown, what: string): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new Error(`${what} is not a list of strings`);
  return value as string[];
};

function allowlist(raw: unknown, what: string): Allowlist | undefined {
  if (!isRecord(raw)) throw new Error(`${what} is not a table`);
  const target = raw.regexTarget ?? 'secret';
  if (target !== 'secret' && target !== 'match' && target !== 'line') throw new Error(`${what}.regexTarget is not secret, match or line`);
  const regexes = strings(raw.regexes, `${what}.regexes`).map((re, i) => {
    try {
      return compileRe2(re);
    } catch (err) {
      throw new Error(`${what}.regexes[${i}] does not compile: ${(err as Error).message}`);
    }
  });
  // An output has no path or commit: an allowlist that needs one as well ("AND") never applies.
  const conditional = raw.condition === 'AND' && (raw.paths !== undefined || raw.commits !== undefined);
  if (conditional) return undefined;
  return { target, regexes, stopwords: strings(raw.stopwords, `${what}.stopwords`).map((word) => word.toLowerCase()) };
}

function kindOf(id: string): string {
  const known: Array<[RegExp, string]> = [
    [/^aws-access-token$/, 'aws_access_key_id'],
    [/^github-/, 'github_token'],
    [/^gitlab-/, 'gitlab_token'],
    [/^slack-webhook-url$/, 'slack_webhook_url'],
    [/^slack-/, 'slack_token'],
    [/^stripe-/, 'stripe_key'],
    [/^openai-/, 'openai_api_key'],
    [/^anthropic-/, 'anthropic_api_key'],
    [/^npm-/, 'npm_token'],
    [/^jwt/, 'jwt'],
    [/^private-key$/, 'private_key'],
    [/^generic-/, 'secret'],
  ];
  const kind = known.find(([re]) => re.test(id))?.[1] ?? id.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
  return kind.slice(0, 40);
}

export function loadRuleFile(path: string): VendorRules {
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`guardrails rule file ${path} does not load: ${(err as Error).message}`);
  }
  try {
    const rules: VendorRule[] = [];
    let generic: Allowlist[] = [];
    const raw = doc.rules ?? [];
    if (!Array.isArray(raw)) throw new Error('rules is not a list of tables');
    raw.forEach((rule: unknown, i) => {
      const id = isRecord(rule) && typeof rule.id === 'string' ? rule.id : `#${i + 1}`;
      try {
        if (!isRecord(rule)) throw new Error('it is not a table');
        if (rule.path !== undefined) return; // a rule for one kind of file
        if (typeof rule.regex !== 'string') throw new Error('its regex is not a string');
        let pattern: RegExp;
        try {
          pattern = compileRe2(widerEnd(withoutNameRun(rule.regex)), 'gd');
        } catch (err) {
          throw new Error(`its regex does not compile: ${(err as Error).message}`);
        }
        const keywords = strings(rule.keywords, 'keywords').map((keyword) => keyword.toLowerCase());
        if (keywords.length === 0) throw new Error('it has no keywords, so it would run on every text');
        const lists = rule.allowlists === undefined ? [] : Array.isArray(rule.allowlists) ? rule.allowlists : [rule.allowlists];
        const compiled = {
          id,
          kind: kindOf(id),
          keywords,
          pattern,
          secretGroup: typeof rule.secretGroup === 'number' ? rule.secretGroup : 0,
          entropy: typeof rule.entropy === 'number' ? rule.entropy : 0,
          allowlists: lists.map((list: unknown, j) => allowlist(list, `allowlists[${j}]`)).filter((list) => list !== undefined),
        };
        if (id === 'generic-api-key') generic = compiled.allowlists;
        if (!SUPERSEDED.has(id)) rules.push(compiled);
      } catch (err) {
        throw new Error(`rule ${id}: ${(err as Error).message}`);
      }
    });
    const global = doc.allowlist === undefined ? undefined : allowlist(doc.allowlist, 'allowlist');
    const prefixes = [...new Set(rules.flatMap((rule) => rule.keywords.filter((keyword) => PREFIX.test(keyword))))];
    return { rules, allowlist: global ?? { target: 'secret', regexes: [], stopwords: [] }, generic, prefixes };
  } catch (err) {
    throw new Error(`guardrails rule file ${path}: ${(err as Error).message}`);
  }
}
