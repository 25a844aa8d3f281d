import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { createSecretScanner, marker } from '../../../src/guardrails/index.js';
import { FAKE_SECRETS, NEAR_MISSES, random } from '../../helpers/fake-secrets.js';

const scanner = createSecretScanner();

describe('the secret rules', () => {
  it.each(FAKE_SECRETS.map((f) => [f.kind, f]))('redact a %s and count it under its kind', (_kind, fake) => {
    const { text, counts } = scanner.redact(`before\n${fake.text}\nafter`);
    expect(text).not.toContain(fake.secret);
    expect(text).toContain(marker(fake.kind));
    expect(counts).toEqual({ [fake.kind]: 1 });
    expect(text.startsWith('before\n') && text.endsWith('\nafter')).toBe(true);
  });

  it.each(NEAR_MISSES.map((text) => [text.slice(0, 60), text]))('leave a near miss whole: %s', (_title, text) => {
    expect(scanner.redact(text)).toEqual({ text });
  });

  it("leave a value a vendor's rule refused under its prefix, and a key or token holding a colon, but not a password holding one", () => {
    const misses = [
      `"token1": "xoxp-1234567890"`,
      `"token3": "xoxp-1234-1234-1234-${random('0123456789abcdef', 32)}"`,
      `telegram_api_token = "3716:A${random('abcdefghijklmnopqrstuvwxyz0123456789_', 34)}"`,
      `SERVICE_TOKEN=${random('abcdefghijklmnopqrstuvwxyz', 12)}:${random('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 24)}`,
    ];
    for (const text of misses) expect(scanner.redact(text)).toEqual({ text });
    const token = `xoxp-${random('0123456789', 11)}-${random('0123456789', 11)}-${random('0123456789', 12)}-${random('0123456789abcdef', 32)}`;
    expect(scanner.redact(`"token": "${token}"`).text).not.toContain(token);
    expect(scanner.redact('DB_PASSWORD=s3cr:et-Pass').text).toBe(`DB_PASSWORD=${marker('password')}`);
    const unprefixed = random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 32);
    expect(scanner.redact(`SERVICE_TOKEN=${unprefixed}`).text).toBe(`SERVICE_TOKEN=${marker('secret')}`);
  });

  it('keep the name of a NAME=value pair and the rest of a URL, replacing only the value', () => {
    expect(scanner.redact('DB_PASSWORD=Tr0ub4dor&3x # local').text).toBe('DB_PASSWORD=[REDACTED:password] # local');
    expect(scanner.redact('postgres://app:S3cr3t-pw9@db:5432/app').text).toBe('postgres://app:[REDACTED:password]@db:5432/app');
    expect(scanner.redact('{"password": "hunter2!x", "user": "ada"}').text).toBe('{"password": "[REDACTED:password]", "user": "ada"}');
  });

  it('find every credential of a text that holds many, and leave a redacted text as it is', () => {
    const text = FAKE_SECRETS.map((f) => f.text).join('\n');
    const once = scanner.redact(text);
    for (const fake of FAKE_SECRETS) expect(once.text).not.toContain(fake.secret);
    expect(Object.values(once.counts!).reduce((a, b) => a + b, 0)).toBe(FAKE_SECRETS.length);
    expect(scanner.redact(once.text)).toEqual({ text: once.text });
  });

  it('redact a PEM block an output was cut inside, up to where its body ends', () => {
    const body = Array.from({ length: 6 }, () => random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 64)).join('\n');
    const { text } = scanner.redact(`key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n${body.slice(0, 300)}`);
    expect(text).toBe('key:\n[REDACTED:private_key]');
  });

  it('leave a value any secrets_allow pattern matches', () => {
    const fixture = `ghp_F1xture${random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 29)}`;
    const allowing = createSecretScanner([RE2JS.compile('^ghp_F1xture')]);
    expect(allowing.redact(`token ${fixture}`)).toEqual({ text: `token ${fixture}` });
    expect(scanner.redact(`token ${fixture}`).text).toBe('token [REDACTED:github_token]');
  });
});

describe('redactValue', () => {
  it('redact strings at any depth and values under secret-naming keys, copying only what changed', () => {
    const untouched = { list: [1, 'two'], nested: { ok: true } };
    const value = {
      untouched,
      creds: { apiKey: 'a8F3kd9QzL0pX2mN', password: 'hunter2!x', password_hash: 'abc123def456' },
      log: [`key AKIA${'Q3EGRPL5ZX7KJ2MN'}`],
    };
    const counts = {};
    const redacted = scanner.redactValue(value, counts) as typeof value;
    expect(redacted.creds).toEqual({ apiKey: '[REDACTED:secret]', password: '[REDACTED:password]', password_hash: 'abc123def456' });
    expect(redacted.log).toEqual(['key [REDACTED:aws_access_key_id]']);
    expect(redacted.untouched).toBe(untouched);
    expect(value.creds.password).toBe('hunter2!x');
    expect(counts).toEqual({ secret: 1, password: 1, aws_access_key_id: 1 });
  });

  it('return the very value when it holds no credential', () => {
    const value = { a: [{ b: 'text' }], max_tokens: 4096, token_type: 'Bearer' };
    expect(scanner.redactValue(value, {})).toBe(value);
  });

  it('redact a value nested deeper than it walks, through its JSON text', () => {
    let deep: unknown = { password: 'hunter2!x' };
    for (let i = 0; i < 300; i++) deep = [deep];
    const counts = {};
    expect(JSON.stringify(scanner.redactValue(deep, counts))).not.toContain('hunter2!x');
    expect(counts).toEqual({ password: 1 });
  });
});
