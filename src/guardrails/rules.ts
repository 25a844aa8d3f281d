/**
 * The credentials found by their own shape: a fixed prefix (`ghp_`, `AKIA`) or frame (a PEM block, a JWT), after
 * gitleaks' and trufflehog's, narrowed where a test showed a false positive (docs/guardrails.md says why each is as it is).
 */

/** `start`..`end` is replaced (by `replacement` when spelt otherwise, in UTF-16); `extent` is where the whole match ends. */
export interface Hit {
  kind: string;
  start: number;
  end: number;
  extent: number;
  replacement?: string;
}

/**
 * `keywords`: literals every match holds, case and all; a text holding none is not searched. `pattern` has `g`; its
 * group 1, where it has one, is the value replaced. `accept` refuses a candidate without a credential's randomness.
 */
export interface PatternRule {
  kind: string;
  keywords: readonly string[];
  pattern: RegExp;
  accept?: (value: string) => boolean;
}

/** Shannon entropy in bits a character: a random key scores 4 to 6, a word 2 to 3. */
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

function pemBodyLength(block: string): number {
  const body = block.replace(/-----(?:BEGIN|END) [^-]{1,64}-----/g, '');
  return (body.match(/[A-Za-z0-9+/=]{16,}/g) ?? []).reduce((sum, run) => sum + run.length, 0);
}

// Every repetition is bounded and no two can take the same characters: a text that fails to match costs linear time.
const PEM_LABEL = '(?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----';
const BREAK = '(?:\\s|\\\\[rn]){1,8}';
// What may stand before a block's line (a diff's `-`, `> `, `# `); never `+` or `/`, which are base64.
const LINE_PREFIX = '(?:[-#>;!*|]{1,3} ?)?';
const PEM_BODY = `(?:${LINE_PREFIX}[A-Za-z0-9+/=]{1,128}${BREAK}|(?:[-+#>;!*|]{1,3} ?)?[A-Za-z-]{1,32}: [^\\r\\n\\\\]{0,128}${BREAK}|[-+#>;!*|]{1,3}${BREAK}){0,400}`;

/** Most specific first: where two match the same text the earlier one names it. */
export const PATTERN_RULES: readonly PatternRule[] = [
  {
    kind: 'gcp_service_account_key',
    keywords: ['PRIVATE KEY'],
    pattern: /"private_key"\s{0,16}:\s{0,16}"(-----BEGIN PRIVATE KEY-----\\n[A-Za-z0-9+/=\\]{64,16384}-----END PRIVATE KEY-----(?:\\n)?)"/g,
  },
  {
    // An unterminated block (an output cut inside it) is redacted up to where its body ends.
    kind: 'private_key',
    keywords: ['PRIVATE KEY'],
    pattern: new RegExp(`-----BEGIN ${PEM_LABEL}${BREAK}${PEM_BODY}(?:${LINE_PREFIX}-----END ${PEM_LABEL}|[A-Za-z0-9+/=]{16,128})`, 'g'),
    // The shortest key body (Ed25519's) holds about 160 characters of base64: under 64 is a placeholder.
    accept: (value) => pemBodyLength(value) >= 64,
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
    // Every Slack token holds its team's or app's numeric id between dashes: "xoxb-your-token" does not.
    kind: 'slack_token',
    keywords: ['xox', 'xapp-'],
    pattern: /(?<![A-Za-z0-9-])(?:xox[abeoprs]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g,
    accept: (value) => /-\d{8,}-/.test(value) && !value.endsWith('-'),
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
    // API and admin keys (sk-ant-api03-, sk-ant-admin01-) are the rule file's, which knows their exact length.
    kind: 'anthropic_api_key',
    keywords: ['k-ant-'],
    pattern: /(?<![A-Za-z0-9_-])sk-ant-(?:oat|ort|sid)\d\d-[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    accept: atLeast(3),
  },
  {
    // Every form holds "openai" in base64 (T3BlbkFJ), as gitleaks requires: a key-shaped string without it is a fixture.
    kind: 'openai_api_key',
    keywords: ['k-'],
    pattern:
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,250}T3BlbkFJ[A-Za-z0-9_-]{20,250}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})(?![A-Za-z0-9_-])/g,
    accept: atLeast(3),
  },
  {
    kind: 'npm_token',
    keywords: ['m_'],
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
    accept: atLeast(3),
  },
  {
    // Header and payload are base64url JSON objects, so both start "eyJ"; an unsigned token ends in its second dot.
    kind: 'jwt',
    keywords: ['yJ'],
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,4096}\.eyJ[A-Za-z0-9_-]{10,8192}\.(?:[A-Za-z0-9_-]{10,4096}={0,2})?(?![A-Za-z0-9_=-])/g,
  },
  {
    // A word or a placeholder (no digit, low entropy) after "Bearer" is prose.
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
