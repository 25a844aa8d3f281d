import type { Logger } from 'pino';
import { AuditTrail, createAuditStore, replicaName } from './audit/index.js';
import { auditSettings } from './config/audit-schema.js';
import type { Config } from './config/schema.js';
import { createTokenVerifier, type TokenVerifier } from './identity/index.js';
import type { Metrics } from './observability/metrics.js';
import { Outage } from './pipeline/outage.js';
import { systemClock } from './shared/clock.js';
import { createSpillStore, refusesStartup } from './spill/index.js';
import type { SpillStore } from './spill/spill-store.js';
import type { HttpDispatchers } from './tools/http/index.js';
import type { CredentialProvider } from './tools/credentials.js';

// The stores and services start-up opens before the port does (prepare in startup.ts): each that cannot be opened is a problem naming it.

export interface StartDeps {
  env: NodeJS.ProcessEnv;
  credentials: CredentialProvider;
  dispatchers: HttpDispatchers;
  metrics: Metrics;
  logger: Logger;
}

const AUDIT_OUTAGE = {
  down: 'audit trail cannot be written: side-effecting calls answer AUDIT_UNAVAILABLE and do not run; read-only calls run, their records held (audit.max_pending)',
  up: 'audit trail written again',
};

export async function openSpill(config: Config, env: NodeJS.ProcessEnv, metrics: Metrics, create: boolean, problems: string[]) {
  let spill: SpillStore | undefined;
  const s3 = {
    region: config.spill.s3_region,
    timeoutMs: config.spill.timeout_ms,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN },
    ...(config.spill.s3_endpoint && { endpoint: config.spill.s3_endpoint }),
  };
  try {
    spill = createSpillStore(config.spill.url, {
      ttlMs: config.spill.ttl_ms,
      clock: systemClock,
      tenantQuotaBytes: config.spill.tenant_quota_bytes,
      onQuotaRemoval: () => metrics.spillQuotaRemovals.inc(),
      s3,
    });
    if (create) await spill.ping();
  } catch (err) {
    // A store only unreachable does not stop start-up (/readyz says so until it answers); one that refuses does.
    if (!spill || refusesStartup(err)) problems.push(`spill.url ${config.spill.url}: ${(err as Error).message}`);
  }
  return { spill, s3 };
}

/** Unlike the spill store, a trail that cannot be written at start-up is a problem: side-effecting calls could not run. */
export async function openAudit(
  config: Config,
  s3: Parameters<typeof createAuditStore>[2],
  role: 'server' | 'worker',
  deps: StartDeps,
  create: boolean,
  problems: string[],
): Promise<AuditTrail | undefined> {
  const audit = auditSettings(config.audit);
  if (!audit) {
    deps.logger.info('audit: false: no audit trail is written');
    return undefined;
  }
  try {
    const store = createAuditStore(audit.url, audit.rotate_bytes, s3);
    if (!create) return undefined;
    const chain = await store.open(replicaName(audit.replica, role));
    await store.ping();
    const health = new Outage(deps.logger, deps.metrics.auditFailures, AUDIT_OUTAGE);
    const onDropped = () => deps.metrics.auditUnrecorded.inc({ kind: 'dropped' });
    return new AuditTrail({ store, chain, clock: systemClock, flushMs: audit.flush_ms, maxPending: audit.max_pending, health, onDropped });
  } catch (err) {
    problems.push(`audit.url ${audit.url}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Each issuer discovered before the port opens: one that cannot be (and is not `lazy`) is a problem naming it. A worker checks no token. */
export async function openTokens(
  config: Config,
  role: 'server' | 'worker',
  deps: StartDeps,
  problems: string[],
): Promise<TokenVerifier | undefined> {
  if (role !== 'server' || config.auth.oauth.length === 0) return undefined;
  const { verifier, problems: found } = await createTokenVerifier(config.auth.oauth, {
    clock: systemClock,
    logger: deps.logger,
    env: deps.env,
  });
  problems.push(...found);
  return verifier;
}
