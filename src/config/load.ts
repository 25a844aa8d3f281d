import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema, type Config } from './schema.js';

/** Start-up refused: every problem found, not just the first. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile<Config>(ConfigSchema);

/** Deployment values that environment variables override, and the config path each lands on. */
const ENV_OVERRIDES: Array<[env: string, set: (raw: Record<string, unknown>, value: string) => string | undefined]> = [
  ['HOST', (raw, v) => void (raw.host = v)],
  ['PORT', (raw, v) => integer(v, (n) => (raw.port = n))],
  ['METRICS_PORT', (raw, v) => integer(v, (n) => (raw.metrics_port = n))],
  ['LOG_LEVEL', (raw, v) => void (raw.log_level = v)],
  ['TOOLGATE_WORKSPACE', (raw, v) => void (raw.workspace = v)],
  ['REDIS_URL', (raw, v) => void (section(raw, 'state').redis_url = v)],
  ['TOOLGATE_REDIS_PREFIX', (raw, v) => void (section(raw, 'state').key_prefix = v)],
  ['TOOLGATE_SPILL_URL', (raw, v) => void (section(raw, 'spill').url = v)],
];

function integer(value: string, set: (n: number) => void): string | undefined {
  if (!/^\d+$/.test(value)) return `must be a whole number, got ${JSON.stringify(value)}`;
  set(Number(value));
  return undefined;
}

function section(raw: Record<string, unknown>, name: string): Record<string, unknown> {
  const current = raw[name];
  if (current && typeof current === 'object' && !Array.isArray(current)) return current as Record<string, unknown>;
  const fresh: Record<string, unknown> = {};
  raw[name] = fresh;
  return fresh;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(top level)' : error.instancePath.slice(1).replaceAll('/', '.');
  if (error.keyword === 'additionalProperties') {
    return `${where}: unknown setting "${String((error.params as { additionalProperty: string }).additionalProperty)}"`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

function readFile(path: string, problems: string[]): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`config file ${path}: ${(err as Error).message}`);
    return {};
  }
  try {
    const parsed: unknown = parseYaml(text, { maxAliasCount: 100 });
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      problems.push(`config file ${path}: the top level must be a mapping`);
      return {};
    }
    return parsed as Record<string, unknown>;
  } catch (err) {
    problems.push(`config file ${path}: ${(err as Error).message}`);
    return {};
  }
}

function semanticProblems(config: Config): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of config.tools) {
    if (seen.has(tool.name)) problems.push(`tools: the name "${tool.name}" is declared twice`);
    seen.add(tool.name);
  }
  config.policy.rules.forEach((rule, i) => {
    for (const [arg, pattern] of Object.entries(rule.when ?? {})) {
      try {
        new RegExp(pattern);
      } catch {
        problems.push(`policy.rules.${i}.when.${arg}: not a valid regular expression`);
      }
    }
  });
  const keyIds = new Set<string>();
  for (const key of config.keys) {
    if (keyIds.has(key.id)) problems.push(`keys: the id "${key.id}" is used twice`);
    keyIds.add(key.id);
  }
  if (config.keys.length === 0 && !isLoopback(config.host) && !config.allow_unauthenticated) {
    problems.push(
      `host: ${config.host} is not a loopback address and no API keys are configured; add keys, bind 127.0.0.1, or set allow_unauthenticated: true`,
    );
  }
  if (config.limits.batch_budget_bytes < config.limits.call_budget_bytes) {
    problems.push('limits.batch_budget_bytes: must be at least limits.call_budget_bytes');
  }
  return problems;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Build the configuration from the optional YAML file (`TOOLGATE_CONFIG`) and
 * the environment, fill defaults, and validate it. Throws ConfigError listing
 * every problem; returns a frozen object.
 */
export function loadConfig(env: NodeJS.ProcessEnv, file: string | undefined = env.TOOLGATE_CONFIG): Config {
  const problems: string[] = [];
  const raw = file ? readFile(file, problems) : {};
  for (const [name, apply] of ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const problem = apply(raw, value);
    if (problem) problems.push(`${name}: ${problem}`);
  }
  if (!validate(raw)) {
    problems.push(...(validate.errors ?? []).map(describe));
    throw new ConfigError(problems);
  }
  problems.push(...semanticProblems(raw));
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(raw);
}

/** A complete configuration from defaults plus overrides, for tests and tools. */
export function configFrom(overrides: Record<string, unknown> = {}): Config {
  const raw = structuredClone(overrides);
  if (!validate(raw)) throw new ConfigError((validate.errors ?? []).map(describe));
  const problems = semanticProblems(raw);
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(raw);
}
