import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectConfig } from '../../../../src/config/load.js';
import { createSecretScanner, shippedRulesProblem } from '../../../../src/guardrails/index.js';
import { loadRuleFile, SHIPPED_RULE_FILE } from '../../../../src/guardrails/vendor/index.js';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-rules-'));
function ruleFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const rule = (id: string, regex: string, extra = '') =>
  `[[rules]]\nid = "${id}"\nregex = '''${regex}'''\nkeywords = ["${id.split('-')[0]}"]\n${extra}\n`;

describe('the rule file', () => {
  it('ships gitleaks’ rules with their license and the commit they were taken at, every rule compiled', () => {
    const source = JSON.parse(readFileSync(join(SHIPPED_RULE_FILE, '../source.json'), 'utf8')) as { commit: string };
    expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(join(SHIPPED_RULE_FILE, '../LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const rules = loadRuleFile(SHIPPED_RULE_FILE);
    expect(rules.rules.length).toBeGreaterThan(200);
    expect(rules.generic.length).toBeGreaterThan(0);
    expect(shippedRulesProblem()).toBeUndefined();
  });

  it('stops with the file named when it does not load, and with the rule named when its regex does not compile', () => {
    const broken = ruleFile('broken.toml', '[[rules]\nid = "x"\n');
    expect(() => loadRuleFile(broken)).toThrow(new RegExp(`^guardrails rule file ${broken} does not load`));
    expect(() => loadRuleFile(join(dir, 'absent.toml'))).toThrow(/absent\.toml does not load/);
    const bad = ruleFile('bad.toml', rule('fine-token', 'fine_[a-z]{8}') + rule('bad-token', 'bad_[a-z'));
    expect(() => loadRuleFile(bad)).toThrow(new RegExp(`^guardrails rule file ${bad}: rule bad-token: its regex does not compile`));
    const unsupported = ruleFile('unsupported.toml', rule('letters-token', '\\pL{8}'));
    expect(() => loadRuleFile(unsupported)).toThrow(/rule letters-token: its regex does not compile: the escape \\p has no translation/);
    const noKeywords = ruleFile('no-keywords.toml', `[[rules]]\nid = "everywhere"\nregex = '''x'''\n`);
    expect(() => loadRuleFile(noKeywords)).toThrow(/rule everywhere: it has no keywords/);
  });

  it('applies a rule’s secretGroup, entropy, allowlists and stopwords, and the file’s global allowlist, as gitleaks does', () => {
    const path = ruleFile(
      'semantics.toml',
      `[allowlist]\nregexes = ['''^zz''']\n` +
        rule('acme-token', '\\b(acme)_([a-z0-9]{12})\\b', 'secretGroup = 2\nentropy = 3\n[[rules.allowlists]]\nstopwords = ["fixture"]\n') +
        rule('beta-token', 'beta_[a-z0-9]{12}', "[[rules.allowlists]]\nregexTarget = \"line\"\nregexes = ['''# test only''']\n"),
    );
    const scanner = createSecretScanner([], loadRuleFile(path));
    expect(scanner.redact('x acme_k3j9q2m8z7w1 y').text).toBe('x acme_[REDACTED:acme_token] y');
    expect(scanner.redact('acme_aaaaaaaaaaaa').counts).toBeUndefined(); // entropy at or under 3
    expect(scanner.redact('acme_fixture0a1b2').counts).toBeUndefined(); // a stopword
    expect(scanner.redact('acme_zzk3j9q2m8z7').counts).toBeUndefined(); // the file's global allowlist
    expect(scanner.redact('beta_k3j9q2m8z7w1').text).toBe('[REDACTED:beta_token]');
    expect(scanner.redact('beta_k3j9q2m8z7w1 # test only').counts).toBeUndefined();
  });
});

describe('guardrails.secrets_allow', () => {
  it('refuses a pattern that matches everything, naming it; a pattern for fixtures is taken', () => {
    for (const pattern of ['.*', '^', 'x?', '.+', '[\\s\\S]']) {
      const file = ruleFile('allow.yaml', `guardrails:\n  secrets_allow: ['^sk_test_FixtureOnly', '${pattern}']\n`);
      expect(inspectConfig({}, file).problems).toEqual([
        expect.stringMatching(/^guardrails\.secrets_allow\.1: ".*" is refused: it matches (the empty string|values of every shape)/),
      ]);
    }
    const fine = ruleFile('fine.yaml', "guardrails:\n  secrets_allow: ['^sk_test_FixtureOnly', 'ghp_0{36}']\n");
    expect(inspectConfig({}, fine).problems).toEqual([]);
  });
});
