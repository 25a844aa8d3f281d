/**
 * Values whose name says they are secret: `DB_PASSWORD=…`, `"apiKey": "…"`,
 * `client_secret: …`, and the password of a URL (`postgres://app:…@db`). The
 * name finds the candidate; the value must still look like a credential, so
 * that code reading one (`password = getPassword()`, `token: string`,
 * `apiKey: config.apiKey`) and documentation (`API_KEY=your-key-here`) stay
 * as they are. Rules, each pinned by test/unit/guardrails/secrets.test.ts:
 * - A name ends in password, passwd, passphrase, pass, secret, token,
 *   credential(s), or api/access/auth/private/secret/signing/encryption/
 *   master/client/session key, optionally followed by _value, _base, _b64,
 *   _base64, _raw or a number; `secret_name`, `max_tokens` or `token_count`
 *   do not end so. Cursors a model must send back (next_token, page_token…)
 *   are not secrets.
 * - The separator is `=`, `:`, `:=` or `=>`; the value is quoted (it may hold
 *   spaces) or runs to the next space, quote, comma, semicolon or bracket,
 *   and a value followed by `(`, `[`, `{` or `<` is code.
 * - The value is at least 6 characters (8 for names other than passwords)
 *   and is neither words alone (a name in code, `true`, `my-bot-token`:
 *   letters, maybe joined by `_`, `-` or `.`), a dotted name
 *   (`config.token`), a reference (`${VAR}`, `$VAR`, `%(x)s`, `{{x}}`,
 *   `<token>`) nor a placeholder (a word such as your, example, sample,
 *   dummy, placeholder, changeme, redacted; `…-here`, `xxxx`, `****`, one
 *   character repeated, an earlier marker).
 * - For names other than passwords the value must also be random-looking:
 *   at least 3 bits of entropy per character.
 */
import { entropy, type Hit } from './rules.js';

const NAME_END_LOWER =
  /(?:api[_-]?key|apikey|(?:access|auth|private|secret|signing|encryption|master|client|session)[_-]?key|passw(?:or)?d|passphrase|pass|secret|token|credentials?)/g;
/** For a text whose lower-cased form has other offsets (a character such as U+0130 lower-cases to two). */
const NAME_END = new RegExp(NAME_END_LOWER.source, 'gi');
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const MAX_NAME = 64;
/** After the name's end: an optional suffix, the separator, then the value in one of four forms (groups 2 to 5). */
const AFTER_NAME =
  /((?:[_.-]?(?:value|base|b64|base64|raw|\d{1,3}))?)["'\]]?[ \t]{0,16}(?::=|=>|=|:)[ \t]{0,16}(?:"((?:[^"\\\r\n]|\\.){1,512})"|'([^'\r\n]{1,512})'|`([^`\r\n]{1,512})`|([^\s"'`,;(){}[\]<>]{1,512})(?![({[<]))/y;
const NOT_SECRET_NAME = /(?:next|page|continuation|pagination|sync|resume|cursor|csrf)[_.-]?token$/i;
const PASSWORD_NAME = /pass/i;

const REFERENCE = /^(?:\$|%\(|\{\{|<|\[REDACTED)|^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const PLACEHOLDER =
  /(?:^|[^a-z])(?:your|insert|enter|replace|example|sample|dummy|placeholder|changeme|redacted|todo|fixme)(?:[^a-z]|$)|(?:^|[^a-z])here$|xxxx|\*\*\*\*|^(.)\1*$/i;
/** Words, alone or joined by `_`, `-` or `.`: a name in code, a keyword or a placeholder, never a credential. */
const LETTERS_ONLY = /^[A-Za-z]+(?:[_.-][A-Za-z]+)*$/;

/** Whether `value`, found under a secret-naming name, is a credential rather than code, a reference or a placeholder. */
export function looksSecret(value: string, password: boolean): boolean {
  if (value.length < (password ? 6 : 8)) return false;
  if (LETTERS_ONLY.test(value) || REFERENCE.test(value) || PLACEHOLDER.test(value)) return false;
  return password || entropy(value) >= 3;
}

/** Where a name ending at `end` starts: back over name characters, at most MAX_NAME of them. */
function nameStart(text: string, end: number): number {
  let start = end;
  while (start > 0 && end - start < MAX_NAME && NAME_CHAR.test(text[start - 1]!)) start--;
  return start;
}

/** Parts of every name's last word, each starting with a character rare in text: what a text must hold to be searched for names. */
const NAME_KEYWORDS = ['key', 'pass', 'cret', 'ken', 'cred'];

/**
 * The `NAME=value` and `"name": "value"` credentials of `text` from `from`
 * on. Names are searched in the text lower-cased, and only in one that holds
 * a NAME_KEYWORDS: a case-sensitive search costs a fraction of a
 * case-insensitive one.
 */
export function findAssignments(text: string, from: number, push: (hit: Hit) => void): void {
  const lower = text.toLowerCase();
  if (!NAME_KEYWORDS.some((keyword) => lower.includes(keyword))) return;
  const [names, haystack] = lower.length === text.length ? [NAME_END_LOWER, lower] : [NAME_END, text];
  names.lastIndex = from;
  for (let m = names.exec(haystack); m !== null; m = names.exec(haystack)) {
    const end = m.index + m[0].length;
    // "pass" ends a name only as a word of its own: DB_PASS, not bypass or compass.
    if (m[0].length === 4 && /[a-z]/i.test(text[m.index - 1] ?? '')) continue;
    AFTER_NAME.lastIndex = end;
    const after = AFTER_NAME.exec(text);
    if (after === null) continue;
    const name = text.slice(nameStart(text, m.index), end + after[1]!.length);
    if (NOT_SECRET_NAME.test(name)) continue;
    const group = after[2] !== undefined ? 2 : after[3] !== undefined ? 3 : after[4] !== undefined ? 4 : 5;
    const value = after[group]!;
    const password = PASSWORD_NAME.test(m[0]);
    if (!looksSecret(value, password)) continue;
    const extent = AFTER_NAME.lastIndex;
    // A quoted value ends one character before the match does (its closing quote).
    const valueEnd = group === 5 ? extent : extent - 1;
    push({ kind: password ? 'password' : 'secret', start: valueEnd - value.length, end: valueEnd, extent });
    names.lastIndex = extent;
  }
}

const URL_PASSWORD = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{1,128}:([^\s:/@"'<>]{1,256})@/g;

/** The password of a URL with credentials (`scheme://user:password@host`). */
export function findUrlPasswords(text: string, from: number, push: (hit: Hit) => void): void {
  URL_PASSWORD.lastIndex = from;
  for (let m = URL_PASSWORD.exec(text); m !== null; m = URL_PASSWORD.exec(text)) {
    const value = m[1]!;
    if (REFERENCE.test(value) || PLACEHOLDER.test(value) || (LETTERS_ONLY.test(value) && value.length < 6)) continue;
    const extent = m.index + m[0].length;
    push({ kind: 'password', start: extent - 1 - value.length, end: extent - 1, extent });
  }
}

const SECRET_NAME = new RegExp(`(${NAME_END_LOWER.source})(?:[_.-]?(?:value|base|b64|base64|raw|\\d{1,3}))?$`, 'i');

/** The kind a JSON key names, as a name before `=` or `:` does (`apiKey`, `db_password`), or undefined for any other key. */
export function secretNameKind(name: string): 'password' | 'secret' | undefined {
  const m = name.length <= MAX_NAME ? SECRET_NAME.exec(name) : null;
  if (m === null || NOT_SECRET_NAME.test(name)) return undefined;
  if (m[1]!.length === 4 && /[a-z]/i.test(name[m.index - 1] ?? '')) return undefined;
  return PASSWORD_NAME.test(m[1]!) ? 'password' : 'secret';
}
