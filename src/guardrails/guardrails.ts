import type { Config } from '../config/schema.js';
import { compilePolicyPattern, toolNameMatcher } from '../policy/index.js';
import { createSecretScanner, type SecretScanner } from './scanner.js';

/** The guardrails of one configuration, by tool. */
export interface Guardrails {
  /** The scanner for a tool's output; undefined when `guardrails.secrets` is off for it. */
  forTool(name: string): SecretScanner | undefined;
}

/**
 * `guardrails.secrets` for every tool, unless `guardrails.tools` names the
 * tool (exactly, else by the first glob that matches it) with its own;
 * `guardrails.secrets_allow` holds RE2 patterns of values never redacted,
 * as the config checks compiled them at start-up.
 */
export function createGuardrails(config: Config['guardrails']): Guardrails {
  const scanner = createSecretScanner(config.secrets_allow.map(compilePolicyPattern));
  const globs = Object.entries(config.tools).map(([glob, setting]) => ({ matches: toolNameMatcher(glob), setting }));
  const settings = new Map<string, SecretScanner | undefined>();
  return {
    forTool(name) {
      if (!settings.has(name)) {
        const setting = config.tools[name] ?? globs.find((glob) => glob.matches(name))?.setting;
        settings.set(name, (setting?.secrets ?? config.secrets) === 'redact' ? scanner : undefined);
      }
      return settings.get(name);
    },
  };
}
