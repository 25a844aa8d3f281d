import { isIP, isIPv4 } from 'node:net';
import { compilePolicyPattern, patternProblem } from '../policy/index.js';
import { isRecord } from '../protocol/json.js';
import type { Config } from './schema.js';
import { credentialProblems } from './credentials-checks.js';
import { oracleProblems } from './secrets-setting.js';

// The checks a configuration must pass beyond its schema: values that must
// agree with each other, and rule patterns that must compile. Each returns
// every problem it finds, one line each.

/** Checks across values; each reads only sections that `sound` says have the right shape. */
export function semanticProblems(config: Config, sound: (section: keyof Config) => boolean): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of sound('tools') ? config.tools : []) {
    if (seen.has(tool.name)) problems.push(`tools: the name "${tool.name}" is declared twice`);
    seen.add(tool.name);
  }
  problems.push(...mcpServerProblems(sound('mcp_servers') ? config.mcp_servers : []));
  const keyIds = new Set<string>();
  const keyHashes = new Map<string, string>();
  for (const key of sound('keys') ? config.keys : []) {
    if (keyIds.has(key.id)) problems.push(`keys: the id "${key.id}" is used twice`);
    keyIds.add(key.id);
    // One secret under two entries would authenticate as whichever came last, possibly another tenant.
    const other = keyHashes.get(key.sha256);
    if (other !== undefined) problems.push(`keys: "${key.id}" has the same sha256 as "${other}"`);
    keyHashes.set(key.sha256, key.id);
  }
  const toolsets = sound('toolsets') ? Object.keys(config.toolsets) : undefined;
  for (const key of sound('keys') && toolsets ? config.keys : []) {
    for (const name of key.toolsets ?? []) {
      if (!toolsets!.includes(name)) {
        problems.push(
          `keys.${key.id}.toolsets: "${name}" is not a toolset; define it under toolsets, or use one of ${toolsets!.join(', ') || '(none defined)'}`,
        );
      }
    }
  }
  const authSound = sound('keys') && sound('host') && sound('allow_unauthenticated') && sound('auth');
  if (
    authSound &&
    config.keys.length === 0 &&
    config.auth.oauth.length === 0 &&
    !isLoopback(config.host) &&
    !config.allow_unauthenticated
  ) {
    problems.push(
      `host: ${config.host} is not a loopback address and no API keys are configured; add keys, bind 127.0.0.1, or set allow_unauthenticated: true`,
    );
  }
  if (sound('auth')) problems.push(...oauthProblems(config.auth.oauth));
  problems.push(...credentialProblems(config, sound));
  (sound('trust_proxy') ? config.trust_proxy : []).forEach((entry, i) => {
    if (!isAddressRange(entry))
      problems.push(`trust_proxy.${i}: ${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, 127.0.0.1, fd00::/8)`);
  });
  if (sound('limits') && config.limits.batch_budget_bytes < config.limits.call_budget_bytes) {
    problems.push('limits.batch_budget_bytes: must be at least limits.call_budget_bytes');
  }
  if (sound('state')) problems.push(...redisProblems(config.state));
  (sound('guardrails') ? config.guardrails.secrets_allow : []).forEach((pattern, i) => {
    const problem = patternProblem(pattern);
    if (problem) problems.push(`guardrails.secrets_allow.${i}: not a valid regular expression ("${pattern}"): ${problem}`);
    const everything = problem ? undefined : allowsEverything(pattern);
    if (everything) problems.push(`guardrails.secrets_allow.${i}: "${pattern}" is refused: ${everything}`);
  });
  if (sound('guardrails')) problems.push(...oracleProblems(config.guardrails));
  if (sound('approvals') && config.approvals.webhook_url !== undefined && config.approvals.webhook_secret === undefined) {
    problems.push(
      'approvals.webhook_secret: required with approvals.webhook_url, which receives every event signed with it (x-toolgate-signature)',
    );
  }
  if (sound('async') && sound('state') && config.async.inline_workers > 0 && !hasRedis(config.state)) {
    problems.push(
      'async.inline_workers: async batches are queued in Redis; set REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES), or set inline_workers to 0',
    );
  }
  return problems;
}

/** Each issuer once, its tenant from exactly one place. */
function oauthProblems(issuers: Config['auth']['oauth']): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  issuers.forEach((entry, i) => {
    const at = `auth.oauth.${i}`;
    if (seen.has(entry.issuer)) problems.push(`${at}.issuer: ${entry.issuer} is listed twice`);
    seen.add(entry.issuer);
    if ((entry.tenant_claim === undefined) === (entry.tenant === undefined)) {
      problems.push(`${at}: set exactly one of tenant_claim (the claim naming the tenant) and tenant (one tenant for every token)`);
    }
    if (Object.keys(entry.scopes_map).length === 0) problems.push(`${at}.scopes_map: maps no token scope; no token could call anything`);
  });
  return problems;
}

/** Values of unlike shapes: a `secrets_allow` pattern that matches every one of them would let every credential through. */
const UNLIKE_VALUES = ['x', '7', 'Tr0ub4dor&3x', 'ghp_0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX', '-----BEGIN PRIVATE KEY-----'];

/** Why an allow pattern would switch redaction off: it matches the empty string, or every value whatever its shape. */
function allowsEverything(pattern: string): string | undefined {
  const re = compilePolicyPattern(pattern);
  if (re.test('')) return 'it matches the empty string, so it matches every value and no credential would be redacted';
  if (UNLIKE_VALUES.every((value) => re.test(value)))
    return 'it matches values of every shape, so no credential would be redacted; name the fixture values it is for';
  return undefined;
}

const TOPOLOGIES = [
  ['redis_url', 'REDIS_URL'],
  ['sentinels', 'REDIS_SENTINELS'],
  ['cluster_nodes', 'REDIS_CLUSTER_NODES'],
] as const;

/** Whether the state section names a Redis, of any topology. */
function hasRedis(state: Config['state']): boolean {
  return TOPOLOGIES.some(([key]) => state[key] !== undefined);
}

/** One topology at most, with the settings it needs and none it ignores. */
function redisProblems(state: Config['state']): string[] {
  const named = TOPOLOGIES.filter(([key]) => state[key] !== undefined);
  if (named.length > 1) {
    const list = named.map(([key, env]) => `${key} (${env})`).join(' and ');
    return [`state: ${list} are all set; give exactly one of redis_url (one node), sentinels (Sentinel) or cluster_nodes (Cluster)`];
  }
  const problems: string[] = [];
  const topology = named[0]?.[0];
  if (topology === 'sentinels' && state.name === undefined) {
    problems.push(
      'state.name: Sentinel needs the name of the primary its sentinels monitor (REDIS_SENTINEL_NAME), as in their `sentinel monitor <name> …` line',
    );
  }
  for (const key of ['name', 'sentinel_password'] as const) {
    if (state[key] !== undefined && topology !== 'sentinels')
      problems.push(`state.${key}: applies only to Sentinel; set state.sentinels (REDIS_SENTINELS) or remove it`);
  }
  const nodeAccess = [state.username !== undefined && 'username', state.password !== undefined && 'password', state.tls && 'tls'].filter(
    Boolean,
  );
  if (nodeAccess.length > 0 && topology !== 'sentinels' && topology !== 'cluster_nodes') {
    const where =
      topology === 'redis_url' ? 'a single node takes them in its URL: rediss://user:password@host:port' : 'there is no Redis configured';
    problems.push(`state: ${nodeAccess.join(', ')} apply only to Sentinel and Cluster; ${where}`);
  }
  return problems;
}

const STDIO_ONLY = ['args', 'env', 'cwd'] as const;
const HTTP_ONLY = ['headers', 'allow_private_network', 'auth'] as const;

/** Each server is either stdio (command) or Streamable HTTP (url), with only the settings of its kind; names are unique. */
function mcpServerProblems(servers: Config['mcp_servers']): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const server of servers) {
    const where = `mcp_servers.${server.name}`;
    if (seen.has(server.name)) problems.push(`mcp_servers: the name "${server.name}" is used twice`);
    seen.add(server.name);
    if ((server.command === undefined) === (server.url === undefined)) {
      problems.push(`${where}: give either command (a stdio server) or url (a Streamable HTTP server)`);
      continue;
    }
    const misplaced =
      server.command === undefined
        ? STDIO_ONLY.filter((key) => server[key] !== undefined)
        : HTTP_ONLY.filter((key) => server[key] !== undefined);
    if (misplaced.length > 0) {
      const kind = server.command === undefined ? 'a Streamable HTTP server (url)' : 'a stdio server (command)';
      problems.push(
        `${where}: ${misplaced.join(', ')} ${misplaced.length > 1 ? 'do' : 'does'} not apply to ${kind}; remove ${misplaced.length > 1 ? 'them' : 'it'}`,
      );
    }
  }
  return problems;
}

/**
 * An address or `address/prefix` that fastify's proxy matching takes: no
 * zone id, and a prefix of 1 to 32 (IPv4) or 128 (IPv6) — it refuses /0, so
 * "trust everyone" cannot be spelled.
 */
function isAddressRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = address.includes('%') ? 0 : isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Whether `host` is this machine's loopback interface; a name like 127.0.0.1.example.com is not, whatever it resolves to. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}

/** Every rule's argument patterns, read as written so that a rule broken elsewhere still has its patterns checked. */
export function patternProblems(rules: readonly unknown[]): string[] {
  const problems: string[] = [];
  rules.forEach((rule, i) => {
    const when = isRecord(rule) ? rule.when : undefined;
    for (const [arg, pattern] of Object.entries(isRecord(when) ? when : {})) {
      const problem = typeof pattern === 'string' ? patternProblem(pattern) : undefined;
      if (problem) problems.push(`policy.rules.${i}.when.${arg}: not a valid regular expression ("${pattern}"): ${problem}`);
    }
  });
  return problems;
}
