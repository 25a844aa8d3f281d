/**
 * The credentials found by their own shape: a fixed prefix (`ghp_`, `AKIA`,
 * `sk-ant-`) or a fixed frame (a PEM block, a JWT's three segments). The
 * regular expressions and keywords follow those of the widely used open
 * scanners (gitleaks, trufflehog), narrowed where a test showed a false
 * positive; see docs/guardrails.md for why each is as it is.
 */

/** A credential found: `start`..`end` is replaced; `extent` is where the whole match ends (a name and separator before, a quote after). */
export interface Hit {
  kind: string;
  start: number;
  end: number;
  extent: number;
}

/**
 * One rule of the set. `keywords` are literals one of which every match
 * holds, case and all: a text holding none of them is not searched with the
 * rule. Each starts with a character that is rare in text and code (`yJ` for
 * a JWT's `eyJ`, `k-` for `sk-`): a search for a literal runs at memory speed
 * to its first character's occurrences, so most texts cost a few microseconds.
 * `pattern` has the `g` flag; its group 1, where it has one, is the value
 * replaced, else the whole match. `accept` refuses a candidate that has the
 * shape but not the randomness of a credential.
 */
interface PatternRule {
  kind: string;
  keywords: readonly string[];
  pattern: RegExp;
  accept?: (value: string) => boolean;
}

/** Shannon entropy of `value` in bits per character: a random key scores 4 to 6, an English word or a repeated filler 2 to 3. */
export function entropy(value: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const atLeast = (bits: number) => (value: string) => entropy(value) >= bits;

// A PEM body: base64 lines, or headers of an encrypted key ("Proc-Type: 4,ENCRYPTED"), each ended by real or
// JSON-escaped line breaks. Every repetition is bounded, and no two can take the same characters, so a text that
// fails to match costs linear time.
const PEM_LABEL = '(?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----';
const BREAK = '(?:\\s|\\\\[rn]){1,8}';
const PEM_BODY = `(?:[A-Za-z0-9+/=]{1,128}${BREAK}|[A-Za-z-]{1,32}: [^\\r\\n\\\\]{0,128}${BREAK}){0,400}`;

/**
 * The rules by shape, most specific first: where two match the same text the
 * earlier one names it (an Anthropic key before anything `sk-`, a service
 * account's JSON key before a bare PEM block).
 */
export const PATTERN_RULES: readonly PatternRule[] = [
  {
    kind: 'gcp_service_account_key',
    keywords: ['PRIVATE KEY'],
    pattern: /"private_key"\s{0,16}:\s{0,16}"(-----BEGIN PRIVATE KEY-----\\n[A-Za-z0-9+/=\\]{64,16384}-----END PRIVATE KEY-----(?:\\n)?)"/g,
  },
  {
    // An unterminated block (an output cut inside it) is redacted up to where its body ends, if its last run looks like
    // key material (16 characters or more), not a line number Read put before "...".
    kind: 'private_key',
    keywords: ['PRIVATE KEY'],
    pattern: new RegExp(`-----BEGIN ${PEM_LABEL}${BREAK}${PEM_BODY}(?:-----END ${PEM_LABEL}|[A-Za-z0-9+/=]{16,128})`, 'g'),
  },
  {
    // AWS's own documentation key (…EXAMPLE) is no one's credential.
    kind: 'aws_access_key_id',
    keywords: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
    pattern: /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])/g,
    accept: (value) => !value.endsWith('EXAMPLE') && entropy(value) >= 3,
  },
  {
    // 40 characters of base64 say nothing by themselves: the name before them must say what they are.
    kind: 'aws_secret_access_key',
    keywords: ['cret', 'CRET'],
    pattern:
      /(?<![A-Za-z0-9])(?:aws[_.-]?)?secret[_.-]?(?:access[_.-]?)?key["']?\s{0,16}(?::|=>?)\s{0,16}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    accept: atLeast(4),
  },
  {
    kind: 'github_token',
    keywords: ['gh', 'github_pat_'],
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9_])/g,
    accept: atLeast(3),
  },
  {
    kind: 'gitlab_token',
    keywords: ['gl', 'GR1348941'],
    pattern:
      /(?<![A-Za-z0-9_-])(?:(?:glpat|gldt|glrt|glsoat|glft)-[A-Za-z0-9_-]{20,64}(?:\.[A-Za-z0-9_.-]{1,64})?|glptt-[0-9a-f]{40}|gloas-[A-Za-z0-9_-]{64}|GR1348941[A-Za-z0-9_-]{20})(?![A-Za-z0-9_-])/g,
    accept: atLeast(3),
  },
  {
    // Every Slack token holds its team's or app's numeric id: "xoxb-your-token" in a README does not.
    kind: 'slack_token',
    keywords: ['xox', 'xapp-'],
    pattern: /(?<![A-Za-z0-9-])(?:xox[abeoprs]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g,
    accept: (value) => /\d{8}/.test(value),
  },
  {
    kind: 'slack_webhook_url',
    keywords: ['hooks.slack.com'],
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,128}/g,
  },
  {
    // Publishable keys (pk_…) are public by design.
    kind: 'stripe_key',
    keywords: ['k_test_', 'k_live_', 'k_prod_', 'whsec_'],
    pattern: /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9+/=]{24,64})(?![A-Za-z0-9])/g,
    accept: atLeast(2),
  },
  {
    kind: 'anthropic_api_key',
    keywords: ['k-ant-'],
    pattern: /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|ort|sid)\d\d-[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    accept: atLeast(3),
  },
  {
    // Project, service-account and admin keys, and the older sk-<48> form (its middle is "openai" in base64: T3BlbkFJ).
    kind: 'openai_api_key',
    keywords: ['k-'],
    pattern:
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,250}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})(?![A-Za-z0-9_-])/g,
    accept: atLeast(3),
  },
  {
    kind: 'npm_token',
    keywords: ['m_'],
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
    accept: atLeast(3),
  },
  {
    // Header and payload are base64url JSON objects, so both start "eyJ" ('{"'); an unsigned token ends in its second dot.
    kind: 'jwt',
    keywords: ['yJ'],
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,4096}\.eyJ[A-Za-z0-9_-]{10,8192}\.(?:[A-Za-z0-9_-]{10,4096}={0,2})?(?![A-Za-z0-9_=-])/g,
  },
  {
    // What follows "Bearer" in a header or a log line; a word or a placeholder (no digit, low entropy) is prose.
    kind: 'bearer_token',
    keywords: ['Bearer', 'bearer', 'BEARER'],
    pattern: /(?<![A-Za-z0-9])[Bb]earer[ \t]{1,16}([A-Za-z0-9._~+/-]{16,4096}={0,2})(?![A-Za-z0-9._~+/=-])/g,
    accept: (value) => /\d/.test(value) && entropy(value) >= 3,
  },
  {
    kind: 'basic_auth',
    keywords: ['Basic', 'basic', 'BASIC'],
    pattern: /authorization["']?[ \t]{0,16}[:=][ \t]{0,16}["']?basic[ \t]{1,16}([A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])/gi,
  },
];
