import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { oracleProblems, secretsSettingFor } from '../../../src/config/secrets-setting.js';

const guardrails = (value: Record<string, unknown>) =>
  ({ ...configFrom().guardrails, tools: {}, ...value }) as ReturnType<typeof configFrom>['guardrails'];

describe("a tool's secrets setting", () => {
  it('comes from its exact name, else the first glob that matches, else guardrails.secrets', () => {
    const config = guardrails({
      secrets: 'redact',
      tools: { 'vault_*': { secrets: 'off' }, '*': { secrets: 'redact' }, vault_peek: { secrets: 'redact' } },
    });
    expect(secretsSettingFor(config, 'vault_peek')).toEqual({ secrets: 'redact', from: 'guardrails.tools.vault_peek' });
    expect(secretsSettingFor(config, 'vault_read')).toEqual({ secrets: 'off', from: 'guardrails.tools.vault_*' });
    expect(secretsSettingFor(guardrails({ secrets: 'off' }), 'Read')).toEqual({ secrets: 'off', from: 'guardrails.secrets' });
  });
});

describe('no oracle by configuration', () => {
  it.each([
    [{ secrets: 'redact', tools: { Edit: { secrets: 'off' } } }, /guardrails\.tools\.Edit: secrets off for Edit while other tools redact/],
    [{ secrets: 'redact', tools: { 'G*': { secrets: 'off' } } }, /guardrails\.tools\.G\*: secrets off for Glob/],
    [{ secrets: 'off', tools: { Read: { secrets: 'redact' } } }, /guardrails\.secrets: secrets off for Edit/],
  ])('refuses %j: a matching tool off while a tool that shows the workspace redacts', (value, message) => {
    expect(oracleProblems(guardrails(value))).toContainEqual(expect.stringMatching(message));
  });

  it.each([
    { secrets: 'redact' },
    { secrets: 'off' },
    { secrets: 'off', tools: { vault_read: { secrets: 'redact' } } },
    { secrets: 'redact', tools: { Bash: { secrets: 'off' }, 'mcp_*': { secrets: 'off' } } },
  ])('accepts %j', (value) => {
    expect(oracleProblems(guardrails(value))).toEqual([]);
  });

  it('stops start-up with the problem named', () => {
    expect(() => configFrom({ guardrails: { tools: { Grep: { secrets: 'off' } } } })).toThrow(
      /guardrails\.tools\.Grep: secrets off for Grep/,
    );
  });
});
