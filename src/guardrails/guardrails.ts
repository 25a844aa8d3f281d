import type { Config } from '../config/schema.js';
import { secretsSettingFor } from '../config/secrets-setting.js';
import { compilePolicyPattern } from '../policy/index.js';
import { createSecretScanner, type SecretScanner } from './scanner.js';

export interface Guardrails {
  /** Undefined when `guardrails.secrets` is off for the tool. */
  forTool(name: string): SecretScanner | undefined;
  /** For arguments given to people and stores (approvals, log lines, audit), whatever `guardrails.secrets` says. */
  records: SecretScanner;
}

/** `guardrails.tools` overrides `guardrails.secrets` by exact name, else by the first matching glob. */
export function createGuardrails(config: Config['guardrails']): Guardrails {
  const scanner = createSecretScanner(config.secrets_allow.map(compilePolicyPattern));
  const settings = new Map<string, SecretScanner | undefined>();
  return {
    records: scanner,
    forTool(name) {
      if (!settings.has(name)) settings.set(name, secretsSettingFor(config, name).secrets === 'redact' ? scanner : undefined);
      return settings.get(name);
    },
  };
}
