import { describe, expect, it } from 'vitest';
import { createSecretScanner } from '../../../src/guardrails/index.js';
import { FAKE_SECRETS, random } from '../../helpers/fake-secrets.js';

/**
 * Most of the rule file's patterns require a quote, a space, `;`, an escaped
 * line break or the end after a token. Tokens only those rules know (an
 * Anthropic api03 key, SendGrid, Hugging Face, Vault, a GCP API key,
 * DigitalOcean…) were left whole before `<`, `)`, `,`, `]`, `}`, `&` or `|`:
 * `<code>…</code>`, a Markdown link, a CSV cell, a URL's `?key=AIza…&x=1`.
 */

const scanner = createSecretScanner();
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKENS: Array<[string, string]> = [
  ['anthropic_api_key', FAKE_SECRETS.find((fake) => fake.kind === 'anthropic_api_key')!.secret],
  ['sendgrid_api_token', `SG.${random(ALNUM, 22)}.${random(ALNUM, 43)}`],
  ['huggingface_access_token', `hf_${random('abcdefghijklmnopqrstuvwxyz', 34)}`],
  ['vault_service_token', `hvs.${random(ALNUM, 90)}`],
  ['gcp_api_key', `AIza${random(ALNUM, 35)}`],
  ['digitalocean_pat', `dop_v1_${random('0123456789abcdef', 64)}`],
];
const CONTEXTS: Array<[string, (token: string) => string]> = [
  ['an HTML element', (token) => `<code>${token}</code>`],
  ['parentheses', (token) => `the key (${token}) was rotated`],
  ['a CSV cell', (token) => `prod,${token},2026-12-07`],
  ['a URL query', (token) => `https://maps.example.test/js?key=${token}&libraries=places`],
  ['a Markdown table', (token) => `| prod | ${token}|`],
  ['a JSON array', (token) => `{"keys": [${token}]}`],
];

describe('a token the rule file knows, before punctuation', () => {
  for (const [context, wrap] of CONTEXTS) {
    it.each(TOKENS)(`a %s in ${context} is redacted`, (kind, token) => {
      const { text, counts } = scanner.redact(wrap(token));
      expect(text).not.toContain(token.slice(-16));
      expect(Object.keys(counts ?? {})).toContain(kind);
    });
  }

  it('a name in code before an opening bracket, and a hash in a file name, stay whole', () => {
    for (const text of ['void GLC_StateBeginUnderwaterAliasModelCaustics(texture_ref base);', `video_box.ico-${random(ALNUM, 32)}.png`])
      expect(scanner.redact(text).text).toBe(text);
  });
});
