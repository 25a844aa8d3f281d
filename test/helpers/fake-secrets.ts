/**
 * Real-looking FAKE credentials of every kind the guardrails redact, and near
 * misses that must come through whole. They are built from a seeded generator
 * when the test runs, so no credential-shaped literal sits in the repository
 * and every run sees the same values.
 */

function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = generator(31);
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B64 = ALNUM + '+/';

export function random(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

function pemBody(lines: number, escaped = false): string {
  const body = Array.from({ length: lines }, () => random(B64, 64));
  return body.join(escaped ? '\\n' : '\n');
}

/** A fake credential: the text it sits in, the value that must not come through, and the kind it is redacted as. */
export interface FakeSecret {
  kind: string;
  secret: string;
  text: string;
}

function fake(kind: string, secret: string, text = secret): FakeSecret {
  return { kind, secret, text };
}

const awsSecret = random(B64, 40);
const gcpKey = `-----BEGIN PRIVATE KEY-----\\n${pemBody(8, true)}\\n-----END PRIVATE KEY-----\\n`;
const rsa = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody(12)}\n-----END RSA PRIVATE KEY-----`;
const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody(6)}\n-----END OPENSSH PRIVATE KEY-----`;
const encrypted = `-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${random('0123456789ABCDEF', 32)}\n\n${pemBody(4)}\n-----END EC PRIVATE KEY-----`;
const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${pemBody(5)}\n=${random(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`;
const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI${random(ALNUM, 30)}.${random(ALNUM + '-_', 43)}`;
const bearer = random(ALNUM, 20) + random(DIGITS, 4) + random(ALNUM, 16);
const asia = `ASIA${random(UPPER + '234567', 16)}`;
const basic = Buffer.from(`deploy:${random(ALNUM, 12)}`).toString('base64');
const django = `django-insecure-${random(LOWER + DIGITS + '!@#%^&*', 40)}`;
const clientSecret = random(ALNUM, 32);
const apiKey = random('0123456789abcdef', 32);

export const FAKE_SECRETS: readonly FakeSecret[] = [
  fake('aws_access_key_id', `AKIA${random(UPPER + '234567', 16)}`),
  fake('aws_access_key_id', asia, `{"AccessKeyId": "${asia}"}`),
  fake('aws_secret_access_key', awsSecret, `aws_secret_access_key = ${awsSecret}`),
  fake('aws_secret_access_key', awsSecret.split('').reverse().join(''), `{"SecretAccessKey": "${awsSecret.split('').reverse().join('')}"}`),
  fake(
    'gcp_service_account_key',
    gcpKey,
    `{"type": "service_account", "private_key_id": "${random('0123456789abcdef', 40)}", "private_key": "${gcpKey}"}`,
  ),
  fake('private_key', rsa),
  fake('private_key', openssh),
  fake('private_key', encrypted),
  fake('private_key', pgp),
  fake('github_token', `ghp_${random(ALNUM, 36)}`),
  fake('github_token', `gho_${random(ALNUM, 36)}`),
  fake('github_token', `github_pat_${random(ALNUM, 22)}_${random(ALNUM, 59)}`),
  fake('gitlab_token', `glpat-${random(ALNUM + '-_', 20)}`),
  fake('slack_token', `xoxb-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${random(ALNUM, 24)}`),
  fake('slack_token', `xoxp-${random(DIGITS, 12)}-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${random('0123456789abcdef', 32)}`),
  fake(
    'slack_webhook_url',
    `https://hooks.slack.com/services/T${random(UPPER + DIGITS, 8)}/B${random(UPPER + DIGITS, 10)}/${random(ALNUM, 24)}`,
  ),
  fake('stripe_key', `sk_live_${random(ALNUM, 24)}`),
  fake('stripe_key', `rk_test_${random(ALNUM, 24)}`),
  fake('stripe_key', `whsec_${random(ALNUM, 32)}`),
  fake('openai_api_key', `sk-proj-${random(ALNUM + '-_', 74)}T3BlbkFJ${random(ALNUM + '-_', 74)}`),
  fake('openai_api_key', `sk-${random(ALNUM, 20)}T3BlbkFJ${random(ALNUM, 20)}`),
  fake('anthropic_api_key', `sk-ant-api03-${random(ALNUM + '-_', 93)}AA`),
  fake('npm_token', `npm_${random(ALNUM, 36)}`),
  fake('jwt', jwt),
  fake('bearer_token', bearer, `curl -H "Authorization: Bearer ${bearer}" https://api.example.com/v1`),
  fake('basic_auth', basic, `Authorization: Basic ${basic}`),
  fake('password', 'Tr0ub4dor&3x', 'DB_PASSWORD=Tr0ub4dor&3x'),
  fake('password', 'hunter2!x', '{"user": "ada", "password": "hunter2!x"}'),
  fake('password', 'S3cr3t-pw9', 'DATABASE_URL=postgres://app:S3cr3t-pw9@db.internal:5432/app'),
  fake('password', 'p@ss w0rd 42', "spring.datasource.password='p@ss w0rd 42'"),
  fake('secret', django, `SECRET_KEY=${django}`),
  fake('secret', clientSecret, `clientSecret: "${clientSecret}"`),
  fake('secret', apiKey, `export OPENWEATHER_API_KEY='${apiKey}'`),
];

/** Texts that look like credentials to a careless rule and are not: each must come through whole. */
export const NEAR_MISSES: readonly string[] = [
  `commit ${random('0123456789abcdef', 40)}`,
  `${random('0123456789abcdef', 64)}  dist/toolgate.tgz`,
  `md5: ${random('0123456789abcdef', 32)}`,
  'request_id: 123e4567-e89b-12d3-a456-426614174000',
  '"integrity": "sha512-' + random(B64, 86) + '=="',
  'AWS docs use AKIAIOSFODNN7EXAMPLE as the example key id',
  `publishable: pk_live_${random(ALNUM, 24)}`,
  `-----BEGIN PUBLIC KEY-----\n${pemBody(4)}\n-----END PUBLIC KEY-----`,
  `-----BEGIN CERTIFICATE-----\n${pemBody(4)}\n-----END CERTIFICATE-----`,
  'Put your key in a file that starts with -----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----',
  'SLACK_BOT_TOKEN=xoxb-your-bot-token',
  'the prefix ghp_ marks a classic token',
  'password: string;',
  'token_count: 12345',
  'max_tokens=4096',
  'const token = getToken(request);',
  'apiKey: config.apiKey,',
  'API_KEY=your-api-key-here',
  'PASSWORD=${DB_PASSWORD}',
  "password = ''",
  'password: z.string().min(8)',
  'if (password === confirmation) {',
  'const secret = await vault.read("db");',
  'token: Token | null',
  'secretName: my-app-secret',
  'PWD=/home/ada/projects',
  'npm_config_cache=/tmp/npm-cache',
  'task-runner sk-learn is a package',
  'use Bearer authentication with Bearer ${TOKEN}',
  'Authorization: Bearer YOUR_ACCESS_TOKEN_HERE',
  '"nextToken": "c2Vjb25kLXBhZ2UtY3Vyc29yLTAwMDE="',
  'see https://user@example.com/path and https://example.com:8443/x',
  'git@github.com:org/repo.git',
  'postgres://app:${DB_PASSWORD}@db:5432/app',
  'bypass=enabled',
  'password_hash: $2b$12$' + random(ALNUM + './', 53),
  'token_type: Bearer',
  `data:image/png;base64,iVBORw0KGgo${random(B64, 200)}`,
  'ask for the passphrase: it is written nowhere',
];
