/**
 * Values whose name says they are secret (`DB_PASSWORD=…`, `"apiKey": "…"`, a URL's password). The name finds the
 * candidate; the value must still look like a credential, so code (`password = getPassword()`) and documentation
 * (`API_KEY=your-key-here`) stay. The rules are stated whole in docs/guardrails.md.
 */
import { entropy, type Hit } from './rules.js';

const NAME_END_LOWER =
  /(?:api[_-]?key|apikey|(?:access|auth|private|secret|signing|encryption|master|client|session)[_-]?key|passw(?:or)?d|passphrase|pass|secret|token|credentials?)/g;
const NAME_END = new RegExp(NAME_END_LOWER.source, 'gi');
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const MAX_NAME = 64;
/** After the name: a suffix, the separator (maybe after a type, or a comma after a quoted name), the value (groups 2-5). */
const AFTER_NAME =
  /((?:[_.-]?(?:value|base|b64|base64|raw|\d{1,3}))?)(?:["'][ \t]{0,16},|["'\]]?(?:[ \t]{1,16}[A-Za-z][\w.]{0,31})?[ \t]{0,16}(?::{1,3}=|=>|[?.+]=|=|:))[ \t]{0,16}(?:"((?:[^"\\\r\n]|\\.){1,512})"|'([^'\r\n]{1,512})'|`([^`\r\n]{1,512})`|([^\s"'`,;(){}[\]<>\\]{1,512})(?![({[]|<(?!\/)|[^\s"'`,;(){}[\]<>\\]))/y;
const XML_VALUE = /()>\s{0,64}([^<\s]{1,512})\s{0,64}<\//dy;
const NOT_SECRET_NAME = /(?:next|page|continuation|pagination|sync|resume|cursor|csrf|xsrf|authenticity)[_.-]?token$/i;
const NOT_REAL_NAME = /non[_.-]?matching|invalid|fake|dummy|example|sample|placeholder|bogus/i;
const PASSWORD_NAME = /pass/i;

const REFERENCE = /^(?:\$|%\(|\{\{|<|\[REDACTED)|^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$|^\{[A-Za-z_][\w.-]*\}$/;
const PLACEHOLDER =
  /(?:^|[^a-z])(?:your|insert|enter|replace|example|sample|dummy|placeholder|changeme|redacted|todo|fixme)(?:[^a-z]|$)|(?:^|[^a-z])here$|xxxx|\*\*\*\*|####|\.\.|…|^(.)\1*$|^(?:my|your|the|some)?[_-]?(?:password|passwd|pass|pwd|secret|token|username|user)$/i;
/** Words alone (a name in code, a keyword, a placeholder): never a credential. */
const LETTERS_ONLY = /^[A-Za-z]+(?:[_.-][A-Za-z]+)*$/;

/** A key or token (not a password) holds no space nor `:` and has more than 3.5 bits of entropy a character (gitleaks' floor). */
export function looksSecret(value: string, password: boolean): boolean {
  if (value.length < (password ? 6 : 8)) return false;
  if (LETTERS_ONLY.test(value) || REFERENCE.test(value) || PLACEHOLDER.test(value)) return false;
  return password || (!/[\s:]/.test(value) && entropy(value) > 3.5);
}

function nameStart(text: string, end: number): number {
  let start = end;
  while (start > 0 && end - start < MAX_NAME && NAME_CHAR.test(text[start - 1]!)) start--;
  return start;
}

/** Parts of every name's last word: a text holding none is not searched for a name. */
export const NAME_KEYWORDS = ['key', 'pass', 'cret', 'ken', 'cred'];

export const URL_KEYWORDS = ['://'];

/** The `NAME=value` credentials of `text` from `from` on, less what `refuseKey` refuses for a key or token. */
export function findAssignments(
  text: string,
  from: number,
  push: (hit: Hit) => void,
  refuseKey: (start: number, end: number, nameStart: number) => boolean = () => false,
): void {
  const lower = text.toLowerCase();
  const [names, haystack] = lower.length === text.length ? [NAME_END_LOWER, lower] : [NAME_END, text];
  names.lastIndex = from;
  for (let m = names.exec(haystack); m !== null; m = names.exec(haystack)) {
    const end = m.index + m[0].length;
    // "pass" ends a name only as a word of its own: DB_PASS, not bypass or compass.
    if (m[0].length === 4 && /[a-z]/i.test(text[m.index - 1] ?? '')) continue;
    const start = nameStart(text, m.index);
    const shape = text[start - 1] === '<' && text[end] === '>' ? XML_VALUE : AFTER_NAME;
    shape.lastIndex = end;
    const after = shape.exec(text);
    if (after === null) continue;
    const name = text.slice(start, end + after[1]!.length);
    if (NOT_SECRET_NAME.test(name) || NOT_REAL_NAME.test(name)) continue;
    const group = after[2] !== undefined ? 2 : after[3] !== undefined ? 3 : after[4] !== undefined ? 4 : 5;
    const value = after[group]!;
    const password = PASSWORD_NAME.test(m[0]);
    if (!looksSecret(value, password)) continue;
    const extent = shape.lastIndex;
    // A quoted value ends before its closing quote; an element's text ends before `</`.
    const valueEnd = shape === XML_VALUE ? after.indices![2]![1] : group === 5 ? extent : extent - 1;
    if (!password && refuseKey(valueEnd - value.length, valueEnd, start)) continue;
    push({ kind: password ? 'password' : 'secret', start: valueEnd - value.length, end: valueEnd, extent });
    names.lastIndex = extent;
  }
}

const SCHEME_CHAR = /[A-Za-z0-9+.-]/;
const MAX_SCHEME = 21;
const CREDENTIALS = /:\/\/([^\s:/@"'<>]{1,128}):([^\s:/@"'<>]{1,256})@/y;

/** The password of each `scheme://user:password@host` whose scheme starts at or after `from`. */
export function findUrlPasswords(text: string, from: number, push: (hit: Hit) => void): void {
  for (let at = text.indexOf('://', from); at >= 0; at = text.indexOf('://', at + 1)) {
    let start = at;
    while (start > 0 && at - start <= MAX_SCHEME && SCHEME_CHAR.test(text[start - 1]!)) start--;
    if (at - start < 2 || at - start > MAX_SCHEME || start < from || !/[A-Za-z]/.test(text[start]!)) continue;
    CREDENTIALS.lastIndex = at;
    const m = CREDENTIALS.exec(text);
    if (m === null) continue;
    const value = m[2]!;
    // A password that repeats the user name (postgres://postgres:postgres@…) is a product's default.
    if (value === m[1]) continue;
    if (REFERENCE.test(value) || PLACEHOLDER.test(value) || (LETTERS_ONLY.test(value) && value.length < 6)) continue;
    const extent = CREDENTIALS.lastIndex;
    push({ kind: 'password', start: extent - 1 - value.length, end: extent - 1, extent });
  }
}

const SECRET_NAME = new RegExp(`(${NAME_END_LOWER.source})(?:[_.-]?(?:value|base|b64|base64|raw|\\d{1,3}))?$`, 'i');

export function secretNameKind(name: string): 'password' | 'secret' | undefined {
  const m = name.length <= MAX_NAME ? SECRET_NAME.exec(name) : null;
  if (m === null || NOT_SECRET_NAME.test(name) || NOT_REAL_NAME.test(name)) return undefined;
  if (m[1]!.length === 4 && /[a-z]/i.test(name[m.index - 1] ?? '')) return undefined;
  return PASSWORD_NAME.test(m[1]!) ? 'password' : 'secret';
}
