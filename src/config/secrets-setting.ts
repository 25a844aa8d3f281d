import { toolNameMatcher } from '../policy/index.js';
import type { Config } from './schema.js';

type GuardrailsConfig = Config['guardrails'];

/** The built-ins that show what the workspace holds, its files' text or names. */
const READING_TOOLS = ['Read', 'LS', 'Grep', 'Glob', 'Edit'];
/** Those of them that match or compare content (docs/guardrails.md, No oracle): they match the redacted view only when their own guardrails are on. */
const MATCHING_TOOLS = ['Edit', 'Glob', 'Grep'];

/**
 * The `secrets` setting of tool `name` and the key it comes from:
 * `guardrails.tools` by its exact name, else by the first glob that matches
 * it, else `guardrails.secrets`.
 */
export function secretsSettingFor(config: GuardrailsConfig, name: string): { secrets: 'redact' | 'off'; from: string } {
  const exact = config.tools[name];
  if (exact) return { secrets: exact.secrets, from: `guardrails.tools.${name}` };
  const glob = Object.entries(config.tools).find(([pattern]) => toolNameMatcher(pattern)(name));
  return glob ? { secrets: glob[1].secrets, from: `guardrails.tools.${glob[0]}` } : { secrets: config.secrets, from: 'guardrails.secrets' };
}

/**
 * A tool that matches workspace content with its guardrails off, while
 * another tool that shows the workspace redacts, matches the raw text: its
 * answers ("not found", a count, a name listed) would tell a model, a call
 * at a time, what the other redacts. Such a configuration is refused: the
 * workspace's tools redact together or not at all (other tools, an HTTP or
 * MCP tool's output, may differ).
 */
export function oracleProblems(config: GuardrailsConfig): string[] {
  if (!READING_TOOLS.some((name) => secretsSettingFor(config, name).secrets === 'redact')) return [];
  return MATCHING_TOOLS.flatMap((name) => {
    const { secrets, from } = secretsSettingFor(config, name);
    return secrets === 'off'
      ? [
          `${from}: secrets off for ${name} while other tools redact: ${name} would match the raw text, and its answers tell a model what the others redact; set it to redact, or turn redaction off for Read, LS, Grep, Glob and Edit alike`,
        ]
      : [];
  });
}
