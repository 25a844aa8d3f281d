import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { KeySchema, type KeyConfig } from './keys-schema.js';
import { ConfigSchema, type Config } from './schema.js';
import { isRecord } from '../protocol/json.js';
import { patternProblems, semanticProblems } from './checks.js';
import { soundPart } from './sound-part.js';
import { patternProblem } from '../policy/index.js';

/** Start-up refused: every problem found, not just the first. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// verbose: a failed union's error carries its members, so the message can list the values it takes.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, verbose: true });
const validate = ajv.compile<Config>(ConfigSchema);
const validateKey = ajv.compile<KeyConfig>(KeySchema);

/** Deployment values that environment variables override, and the config path each lands on. */
const ENV_OVERRIDES: Array<[env: string, set: (raw: Record<string, unknown>, value: string) => string | undefined]> = [
  ['HOST', (raw, v) => void (raw.host = v)],
  ['PORT', (raw, v) => integer(v, (n) => (raw.port = n))],
  ['METRICS_PORT', (raw, v) => integer(v, (n) => (raw.metrics_port = n))],
  ['LOG_LEVEL', (raw, v) => void (raw.log_level = v)],
  ['TOOLGATE_WORKSPACE', (raw, v) => void (raw.workspace = v)],
  ['REDIS_URL', (raw, v) => void (section(raw, 'state').redis_url = v)],
  ['REDIS_SENTINELS', (raw, v) => nodeList(v, (nodes) => (section(raw, 'state').sentinels = nodes))],
  ['REDIS_SENTINEL_NAME', (raw, v) => void (section(raw, 'state').name = v)],
  ['REDIS_SENTINEL_PASSWORD', (raw, v) => void (section(raw, 'state').sentinel_password = v)],
  ['REDIS_CLUSTER_NODES', (raw, v) => nodeList(v, (nodes) => (section(raw, 'state').cluster_nodes = nodes))],
  ['REDIS_PASSWORD', (raw, v) => void (section(raw, 'state').password = v)],
  ['REDIS_TLS', (raw, v) => boolean(v, (b) => (section(raw, 'state').tls = b))],
  ['TOOLGATE_REDIS_PREFIX', (raw, v) => void (section(raw, 'state').key_prefix = v)],
  ['TOOLGATE_SPILL_URL', (raw, v) => void (section(raw, 'spill').url = v)],
  ['TOOLGATE_AUDIT_URL', (raw, v) => void (section(raw, 'audit').url = v)],
  ['S3_ENDPOINT', (raw, v) => void (section(raw, 'spill').s3_endpoint = v)],
  ['AWS_REGION', (raw, v) => void (section(raw, 'spill').s3_region = v)],
];

function integer(value: string, set: (n: number) => void): string | undefined {
  if (!/^\d+$/.test(value)) return `must be a whole number, got ${JSON.stringify(value)}`;
  set(Number(value));
  return undefined;
}

function boolean(value: string, set: (b: boolean) => void): string | undefined {
  if (!/^(true|false|1|0)$/.test(value)) return `must be true or false (or 1 or 0), got ${JSON.stringify(value)}`;
  set(value === 'true' || value === '1');
  return undefined;
}

/** `host:port,host:port,…`, an IPv6 host in brackets (`[::1]:26379`); the host itself is checked by the schema. */
function nodeList(value: string, set: (nodes: { host: string; port: number }[]) => void): string | undefined {
  const nodes = value.split(',').map((entry) => /^\s*(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})\s*$/.exec(entry));
  const bad = nodes.findIndex((match) => match === null);
  if (bad >= 0) return `must be host:port,host:port,… (IPv6 as [::1]:6379), got ${JSON.stringify(value.split(',')[bad])}`;
  set(nodes.map((match) => ({ host: match![1] ?? match![2]!, port: Number(match![3]) })));
  return undefined;
}

function section(raw: Record<string, unknown>, name: string): Record<string, unknown> {
  const current = raw[name];
  if (current && typeof current === 'object' && !Array.isArray(current)) return current as Record<string, unknown>;
  const fresh: Record<string, unknown> = {};
  raw[name] = fresh;
  return fresh;
}

/** `error` as "path: message"; `base` is where the validated value sits in a larger document. */
function describe(error: ErrorObject, base = ''): string {
  const where = [base, ...error.instancePath.split('/').slice(1)].filter((part) => part !== '').join('.') || '(top level)';
  if (error.keyword === 'additionalProperties') {
    const parent = error.parentSchema as { properties?: object; patternProperties?: object } | undefined;
    const known = Object.keys(parent?.properties ?? {});
    const names = Object.keys(parent?.patternProperties ?? {});
    // A map whose keys the user names (toolsets): the key is a name that breaks its pattern, not an unknown setting.
    if (known.length === 0 && names.length > 0) {
      return `${where}: "${String((error.params as { additionalProperty: string }).additionalProperty)}" is not a valid name; use ${names.join(' or ')}`;
    }
    const fix = known.length > 0 ? `; remove it, or use one of ${known.join(', ')}` : '; remove it';
    return `${where}: unknown setting "${String((error.params as { additionalProperty: string }).additionalProperty)}"${fix}`;
  }
  if (error.keyword === 'anyOf') {
    const values = (error.schema as Array<{ const?: unknown }>).map((member) => member.const);
    if (values.every((v) => v !== undefined)) return `${where}: must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/** One line per problem: a union of literals fails once per member and once as a whole, and only the whole is reported. */
function describeAll(errors: ErrorObject[], base = ''): string[] {
  return errors.filter((e) => !/\/anyOf\/\d+\/const$/.test(e.schemaPath)).map((e) => describe(e, base));
}

function readYaml(path: string, what: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`${what} ${path}: ${(err as Error).message}`);
    return undefined;
  }
  try {
    return parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    problems.push(`${what} ${path}: ${(err as Error).message}`);
    return undefined;
  }
}

function readConfigFile(path: string, problems: string[]): Record<string, unknown> {
  const parsed = readYaml(path, 'config file', problems);
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push(`config file ${path}: the top level must be a mapping`);
    return {};
  }
  return parsed as Record<string, unknown>;
}

/** Key entries kept apart from the rest of the config (a mounted secret, say); an empty file holds none yet. */
function readKeysFile(path: string, problems: string[]): KeyConfig[] {
  const parsed = readYaml(path, 'keys_file', problems);
  if (parsed === null || parsed === undefined) return [];
  if (!Array.isArray(parsed)) {
    problems.push(`keys_file ${path}: the top level must be a list of key entries`);
    return [];
  }
  const keys: KeyConfig[] = [];
  parsed.forEach((entry: unknown, i) => {
    if (validateKey(entry)) keys.push(entry);
    else problems.push(...describeAll(validateKey.errors ?? [], String(i)).map((problem) => `keys_file ${path}: ${problem}`));
  });
  return keys;
}

/** What is wrong with one key entry, as "field: problem"; empty when it is valid. */
export function keyProblems(entry: unknown): string[] {
  return validateKey(entry) ? [] : describeAll(validateKey.errors ?? []);
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** A signature is only as strong as its key. */
const SIGNING_SECRET_MIN = 16;

/** The secrets that sign what toolgate POSTs: async callbacks and the approvals webhook. */
const SIGNING_SECRETS = [
  ['async', 'callback_secret'],
  ['approvals', 'webhook_secret'],
] as const;

/** Each signing secret with its `${VAR}` references filled from the environment, in place; what is wrong, if anything. */
function resolveSigningSecrets(config: Config, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const [section, key] of SIGNING_SECRETS) {
    const settings = config[section] as Record<string, unknown> | undefined;
    const written = settings?.[key];
    if (typeof written !== 'string') continue;
    const found: string[] = [];
    const secret = written.replace(ENV_REF, (_, name: string) => {
      const value = env[name];
      if (value === undefined || value === '') found.push(`${section}.${key}: uses \${${name}}, which is not set in the environment`);
      return value ?? '';
    });
    if (found.length === 0 && secret.length < SIGNING_SECRET_MIN) {
      found.push(`${section}.${key}: must be at least ${SIGNING_SECRET_MIN} characters (e.g. openssl rand -hex 32)`);
    }
    settings![key] = secret;
    problems.push(...found);
  }
  return problems;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** What start-up learns from the configuration file and the environment, problems and all. */
export interface ConfigReport {
  /** Every problem found, each "where: what is wrong", most with what to do. */
  problems: string[];
  /**
   * The configuration; where `problems` is not empty, with every part that
   * failed validation left out (a tool, key or rule dropped, a builtins entry
   * emptied, another value back to its default), for the checks that follow.
   */
  config: Config;
  /** The policy rules and tools as written, valid or not, for checks that name a rule by its index or need every declared tool. */
  written: { rules: readonly unknown[]; tools: readonly unknown[] };
  /** The config file's folder (else the working directory): relative paths in it are read from here. */
  baseDir: string;
}

/** Validate `raw` with the entries of its `keys_file` (resolved against `baseDir`) joined to `keys`; `problems` are those found so far. */
function inspect(raw: Record<string, unknown>, problems: string[], baseDir: string): ConfigReport {
  const policy = raw.policy;
  const written = {
    rules: isRecord(policy) && Array.isArray(policy.rules) ? [...(policy.rules as unknown[])] : [],
    tools: Array.isArray(raw.tools) ? [...(raw.tools as unknown[])] : [],
  };
  const keysFile = raw.keys_file;
  const fileKeys = typeof keysFile === 'string' && keysFile.length > 0 ? readKeysFile(resolve(baseDir, keysFile), problems) : [];
  const errors = validate(raw) ? [] : (validate.errors ?? []);
  problems.push(...describeAll(errors));
  problems.push(...patternProblems(written.rules));
  // The cross-value checks still run on every section that validated, so one run lists every problem.
  const broken = new Set(errors.map((e) => e.instancePath.split('/')[1]));
  const config = errors.length === 0 ? (raw as Config) : soundPart(raw, errors, validate);
  // A rule whose pattern RE2 refuses (listed above) is left out like one the schema refused: the checks that follow compile the rules.
  config.policy.rules = config.policy.rules.filter((rule) =>
    Object.values(rule.when ?? {}).every((pattern) => patternProblem(pattern) === undefined),
  );
  config.keys.push(...fileKeys);
  problems.push(...semanticProblems(config, (section) => !broken.has(section)));
  return { problems, config, written, baseDir };
}

/** The configuration `report` describes, frozen; throws ConfigError when it has problems. */
export function acceptConfig(report: ConfigReport): Config {
  if (report.problems.length > 0) throw new ConfigError(report.problems);
  return deepFreeze(report.config);
}

/**
 * Read the optional YAML file (`TOOLGATE_CONFIG`) and the environment, fill
 * defaults, and validate: every problem, never just the first. Start-up
 * continues its checks on `config` before refusing.
 */
export function inspectConfig(env: NodeJS.ProcessEnv, file: string | undefined = env.TOOLGATE_CONFIG): ConfigReport {
  const problems: string[] = [];
  const raw = file ? readConfigFile(file, problems) : {};
  for (const [name, apply] of ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const problem = apply(raw, value);
    if (problem) problems.push(`${name}: ${problem}`);
  }
  const report = inspect(raw, problems, file ? dirname(resolve(file)) : process.cwd());
  report.problems.push(...resolveSigningSecrets(report.config, env));
  return report;
}

/**
 * The configuration from the optional YAML file and the environment, frozen.
 * Throws ConfigError listing every problem.
 */
export function loadConfig(env: NodeJS.ProcessEnv, file: string | undefined = env.TOOLGATE_CONFIG): Config {
  return acceptConfig(inspectConfig(env, file));
}

/**
 * A complete configuration from defaults plus overrides, for tests and tools; a relative `keys_file` is read from the working directory.
 */
export function configFrom(overrides: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): Config {
  const report = inspect(structuredClone(overrides), [], process.cwd());
  report.problems.push(...resolveSigningSecrets(report.config, env));
  return acceptConfig(report);
}
