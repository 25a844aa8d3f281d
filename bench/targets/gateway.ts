import { pathToFileURL } from 'node:url';
import type * as App from '../../src/app.js';
import type * as Audit from '../../src/audit/index.js';
import type * as Load from '../../src/config/load.js';
import type * as Guardrails from '../../src/guardrails/index.js';
import type * as Logger from '../../src/observability/logger.js';
import type * as Registry from '../../src/registry/registry.js';
import type * as Spill from '../../src/spill/index.js';
import type * as Clock from '../../src/shared/clock.js';
import type * as Memory from '../../src/state/memory/index.js';
import type * as Redis from '../../src/state/redis/index.js';
import type * as HttpTools from '../../src/tools/http/index.js';
import type * as Identity from '../../src/identity/index.js';
import type * as Tools from '../../src/tools/index.js';
import { childOptions, serveTarget } from './child.js';
import { catalogTools } from '../shared/search-queries.js';
import { createEnvCredentials } from '../../src/tools/credentials.js';

export interface GatewayOptions {
  workspace: string;
  spillDir: string;
  logLevel: string;
  /** Absent: the memory store. */
  redisUrl?: string;
  /** HTTP tools to declare besides the built-ins: a large catalog (none are called). */
  httpTools?: number;
  /** The audit trail on, as a file store in this directory; absent: off. */
  auditDir?: string;
  /** `guardrails.secrets: off` (the output scanner skipped); absent: on, the default. */
  secretsOff?: boolean;
  /** The Bash built-in on, with its default sandbox (auto); absent: off, the default. */
  bash?: boolean;
  /** Callers: one API key (its SHA-256) and one OAuth issuer, both of tenant `bench`; absent: the keyless local caller. */
  callers?: { keySha256: string; issuer: string; audience: string };
}

/**
 * The first `count` tools of the realistic catalog (test/fixtures/catalog:
 * GitHub REST operations and server-everything's tools) as HTTP tools, their
 * schemas as published. Their URL is a loopback port nothing listens on: the
 * bench lists and searches these tools, it never calls them.
 */
function httpTools(count: number) {
  return catalogTools()
    .slice(0, count)
    .map((tool) => ({ ...tool, http: { method: 'GET' as const, url: `http://127.0.0.1:9/${tool.name}`, allow_private_network: true } }));
}

/**
 * The gateway runs from the build (dist/, what `npm start` runs), not under
 * tsx: tsx keeps function names by wrapping every named function it creates
 * at run time in a `__name()` call, a cost per closure that production does
 * not pay and that would be counted against the gateway.
 */
const build = <T>(path: string): Promise<T> => import(new URL(`../../dist/${path}`, import.meta.url).href) as Promise<T>;
const { buildApp } = await build<typeof App>('app.js');
const { configFrom } = await build<typeof Load>('config/load.js');
const { createLogger } = await build<typeof Logger>('observability/logger.js');
const { logLineScrubber } = await build<typeof Guardrails>('guardrails/index.js');
const { createRegistry, registryDefaults } = await build<typeof Registry>('registry/registry.js');
const { createSpillStore } = await build<typeof Spill>('spill/index.js');
const { systemClock } = await build<typeof Clock>('shared/clock.js');
const { createMemoryStateStore } = await build<typeof Memory>('state/memory/index.js');
const { createRedisStateStore } = await build<typeof Redis>('state/redis/index.js');
const { createHttpDispatchers } = await build<typeof HttpTools>('tools/http/index.js');
const { loadTools } = await build<typeof Tools>('tools/index.js');
const { AuditTrail, createAuditStore } = await build<typeof Audit>('audit/index.js');
const { createTokenVerifier } = await build<typeof Identity>('identity/index.js');

/**
 * toolgate as `toolgate serve` wires it (src/server.ts), plus the Noop and tool_search tools:
 * the real clock, a file spill store, pino JSON lines on stdout (the runner
 * points stdout at /dev/null), no API keys (the loopback local caller).
 */
const options = childOptions<GatewayOptions>();

await serveTarget(async () => {
  const config = configFrom({
    workspace: options.workspace,
    log_level: options.logLevel,
    builtins: { Noop: { enabled: true }, tool_search: { enabled: true }, ...(options.bash && { Bash: { enabled: true } }) },
    tools: httpTools(options.httpTools ?? 0),
    spill: { url: pathToFileURL(options.spillDir).href },
    state: options.redisUrl ? { redis_url: options.redisUrl } : {},
    ...(options.secretsOff && { guardrails: { secrets: 'off' } }),
    ...(options.callers && {
      keys: [{ id: 'bench', sha256: options.callers.keySha256, tenant: 'bench', scopes: ['execute'] }],
      // The tenant works in the workspace itself, so its calls read the files every target reads.
      tenants: { bench: { workspace: options.workspace } },
      auth: { oauth: [{ issuer: options.callers.issuer, audience: options.callers.audience, tenant: 'bench' }] },
    }),
  });
  const logger = createLogger(config.log_level, logLineScrubber(config.guardrails));
  const dispatchers = createHttpDispatchers();
  const registry = createRegistry(
    loadTools(config, { workspace: config.workspace, credentials: createEnvCredentials({}), dispatchers }),
    registryDefaults(config),
  );
  const spill = createSpillStore(config.spill.url, { ttlMs: config.spill.ttl_ms, clock: systemClock });
  const state = config.state.redis_url
    ? createRedisStateStore({
        url: config.state.redis_url,
        keyPrefix: config.state.key_prefix,
        connectTimeoutMs: config.state.connect_timeout_ms,
        commandTimeoutMs: config.state.command_timeout_ms,
      })
    : createMemoryStateStore();
  let audit: Audit.AuditTrail | undefined;
  if (options.auditDir) {
    // As start-up opens it (src/startup.ts), with the default settings.
    const store = createAuditStore(pathToFileURL(options.auditDir).href, 67_108_864, undefined);
    const chain = await store.open('bench');
    audit = new AuditTrail({
      store,
      chain,
      clock: systemClock,
      flushMs: 200,
      maxPending: 100_000,
      health: { failed: () => {}, ok: () => {} },
      onDropped: () => {},
    });
  }
  let tokens: Identity.TokenVerifier | undefined;
  if (config.auth.oauth.length > 0) {
    const made = await createTokenVerifier(config.auth.oauth, { clock: systemClock, logger, env: process.env });
    if (made.problems.length > 0) throw new Error(made.problems.join('; '));
    tokens = made.verifier;
  }
  const app = await buildApp(
    { state, spill, registry, clock: systemClock, logger, ...(audit && { audit }), ...(tokens && { tokens }) },
    config,
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    async stats() {
      const { values } = await app.metrics.toolCalls.get();
      const count = (error: boolean) => values.filter((v) => (v.labels.status === 'error') === error).reduce((sum, v) => sum + v.value, 0);
      const toolErrors = count(true);
      return { toolCalls: count(false) + toolErrors, toolErrors };
    },
    async close() {
      await app.close();
      tokens?.close();
      await audit?.close();
      await state.close();
      await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
    },
  };
});
