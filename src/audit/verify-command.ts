import { parseArgs } from 'node:util';
import { auditSettings } from '../config/audit-schema.js';
import { inspectConfig } from '../config/load.js';
import { createAuditStore } from './index.js';
import { verifyChain } from './verify.js';

/** `toolgate audit verify [--url URL]`: one line per chain; exit 1 naming the first record changed, removed or reordered. */
export async function auditVerify(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { url: { type: 'string' } }, strict: true });
  const { config } = inspectConfig(env);
  const url = values.url ?? auditSettings(config.audit === false ? {} : config.audit)!.url;
  const store = createAuditStore(url, Number.MAX_SAFE_INTEGER, {
    region: config.spill.s3_region,
    timeoutMs: config.spill.timeout_ms,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN },
    ...(config.spill.s3_endpoint && { endpoint: config.spill.s3_endpoint }),
  });
  const chains = await store.chains();
  if (chains.length === 0) {
    out(`${url}: no audit chains`);
    return 0;
  }
  let failed = 0;
  for (const chain of chains) {
    const report = await verifyChain(store, chain);
    if (report.problem === undefined) out(`chain ${chain}: ${report.records} records, ok`);
    else {
      failed++;
      out(`chain ${chain}: FAILED after ${report.records} good records: ${report.problem}`);
    }
  }
  return failed > 0 ? 1 : 0;
}
