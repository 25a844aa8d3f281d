import { describe, expect, it } from 'vitest';
import { createSecretScanner, marker } from '../../../src/guardrails/index.js';
import { FAKE_SECRETS, NEAR_MISSES } from '../../helpers/fake-secrets.js';

/**
 * Two spellings a credential reaches a model in that hid it from every rule:
 * ANSI colour codes inside it (`grep --color=always ghp_ .env` colours the
 * prefix and splits the token: `\e[01;31m\e[Kghp_\e[m\e[K<rest>`; `jq -C`,
 * `git diff --color`), and HTML character references (an HTTP tool's page:
 * `data-config="{&quot;api_key&quot;:&quot;…&quot;}"`, `&#103;hp_…`).
 */

const scanner = createSecretScanner();
const cases = FAKE_SECRETS.map((fake) => [fake.kind, fake] as const);
const RED = '\u001b[01;31m\u001b[K';
const RESET = '\u001b[m\u001b[K';

describe('ANSI colour codes inside a credential', () => {
  it.each(cases)('a %s with its first characters coloured, as grep --color shows a match, is redacted', (_kind, fake) => {
    const cut = Math.min(4, fake.text.length - 1);
    const text = `.env:${RED}${fake.text.slice(0, cut)}${RESET}${fake.text.slice(cut)}\n`;
    const { text: out, counts } = scanner.redact(text);
    expect(counts?.[fake.kind]).toBeGreaterThanOrEqual(1);
    expect(out).toContain(marker(fake.kind));
    for (const part of [fake.secret.slice(0, 12), fake.secret.slice(-12)]) if (part.length >= 8) expect(out).not.toContain(part);
  });

  it('a name coloured by grep (DB_\\e[31mPASSWORD\\e[m=…) still names its value; colour escaped in a JSON log too', () => {
    const { text } = scanner.redact(`DB_${RED}PASSWORD${RESET}=Tr0ub4dor&3x\n`);
    expect(text).not.toContain('Tr0ub4dor');
    const json = JSON.stringify({ log: `x ${RED}ghp_${RESET}${FAKE_SECRETS.find((f) => f.kind === 'github_token')!.secret.slice(4)}` });
    const { text: log } = scanner.redact(json);
    expect(JSON.parse(log).log).toContain(marker('github_token'));
  });

  it('coloured text with no credential comes through whole', () => {
    const text = `${RED}error${RESET}: token_count: 12345 ${RED}ghp_${RESET} marks a classic token\n`;
    expect(scanner.redact(text).text).toBe(text);
  });
});

describe('HTML character references', () => {
  it.each(cases)('a %s in an HTML attribute (quotes as &quot;, & as &amp;) is redacted', (_kind, fake) => {
    const escaped = fake.text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const html = `<div data-config="{&quot;log&quot;: &quot;${escaped}&quot;}"></div>`;
    const { text, counts } = scanner.redact(html);
    // A value read from the raw text may end at the `&quot;` after it and take another kind (`secret`): it is gone all the same.
    expect(Object.keys(counts ?? {}).length).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(fake.secret.replace(/&/g, '&amp;').replace(/"/g, '&quot;'));
    for (const line of fake.secret.split(/\\n|\n/)) if (line.length >= 16) expect(text).not.toContain(line);
  });

  it.each(cases)('a %s spelt with numeric references (&#103; &#x68;) is redacted', (_kind, fake) => {
    const spelt = [...fake.text].map((c, i) =>
      i % 3 === 0 ? `&#${c.charCodeAt(0)};` : i % 3 === 1 ? `&#x${c.charCodeAt(0).toString(16)};` : c,
    );
    const { text, counts } = scanner.redact(`<p>${spelt.join('')}</p>`);
    expect(counts?.[fake.kind]).toBeGreaterThanOrEqual(1);
    expect(text).toContain(marker(fake.kind));
  });

  it('password=&quot;…&quot; is redacted, the entities around the marker kept', () => {
    expect(scanner.redact('password=&quot;Tr0ub4dor&amp;3x&quot;').text).toBe(`password=&quot;${marker('password')}&quot;`);
  });

  it.each(NEAR_MISSES.map((text) => [text]))('a near miss with its quotes as &quot; stays whole: %s', (text) => {
    const html = text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    expect(scanner.redact(html).text).toBe(html);
  });
});
