import { describe, expect, it } from 'vitest';
import { configFrom, inspectConfig } from '../../../src/config/load.js';
import { createGuardrails } from '../../../src/guardrails/index.js';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('guardrails config', () => {
  it('redacts for every tool by default', () => {
    const config = configFrom();
    expect(config.guardrails).toEqual({ secrets: 'redact', secrets_allow: [], tools: {} });
    expect(createGuardrails(config.guardrails).forTool('Read')).toBeDefined();
  });

  it('takes a tool’s own setting: its exact name first, else the first glob that matches it', () => {
    const guardrails = createGuardrails(
      configFrom({
        guardrails: {
          secrets: 'off',
          tools: { 'vault_*': { secrets: 'redact' }, '*': { secrets: 'off' }, vault_peek: { secrets: 'off' } },
        },
      }).guardrails,
    );
    expect(guardrails.forTool('vault_read')).toBeDefined();
    expect(guardrails.forTool('vault_peek')).toBeUndefined();
    expect(guardrails.forTool('Read')).toBeUndefined();
    const on = createGuardrails(configFrom({ guardrails: { tools: { Bash: { secrets: 'off' } } } }).guardrails);
    expect(on.forTool('Bash')).toBeUndefined();
    expect(on.forTool('Read')).toBeDefined();
  });

  it('refuses a secrets_allow pattern RE2 does not take, and a setting that is neither redact nor off, naming each', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-guardrails-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, "guardrails:\n  secrets: mask\n  secrets_allow: ['^ghp_fixture', '(?=x)']\n  tools:\n    Bash: {secrets: maybe}\n");
    const problems = inspectConfig({}, file).problems.join('\n');
    expect(problems).toMatch(/guardrails\/secrets|guardrails\.secrets/);
    expect(problems).toMatch(/guardrails\.tools|guardrails\/tools/);
    const patterns = join(dir, 'patterns.yaml');
    writeFileSync(patterns, "guardrails:\n  secrets_allow: ['^ghp_fixture', '(?=x)']\n");
    expect(inspectConfig({}, patterns).problems).toEqual([
      expect.stringMatching(/^guardrails\.secrets_allow\.1: not a valid regular expression \("\(\?=x\)"\): lookahead/),
    ]);
  });
});
