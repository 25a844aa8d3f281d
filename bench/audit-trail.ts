import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createFileAuditStore } from '../src/audit/file-store.js';
import { AuditTrail, queryAudit } from '../src/audit/index.js';
import { systemClock } from '../src/shared/clock.js';

const HELP = `npx tsx bench/audit-trail.ts [--records N] [--keep]

Writes N audit records (default 1,000,000) of one tenant in ten, as the
gateway writes them (file store, 64 MiB files), then measures:
  - toolgate audit verify over them: wall time and peak RSS (GNU time);
  - GET /audit's scan: the newest 100 records of a tenant, and a query that
    matches nothing (the whole trail read).
--keep leaves the trail in place and prints where.`;

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const count = Number(values.records);
const dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-bench-'));
const store = createFileAuditStore({ dir, rotateBytes: 67_108_864 });
const trail = new AuditTrail({
  store,
  chain: await store.open('bench'),
  clock: systemClock,
  flushMs: 200,
  maxPending: 1_000_000,
  health: { failed: (err) => console.error(err), ok: () => {} },
  onDropped: () => {},
});

let started = performance.now();
for (let i = 1; i <= count; i++) {
  trail.record(
    {
      kind: 'call',
      tenant: `tenant-${i % 10}`,
      key_id: 'key-1',
      session_id: `session-${i % 1000}`,
      request_id: `req-${i}`,
      call_id: `call_${i}`,
      tool: i % 3 === 0 ? 'Write' : 'Read',
      arguments_sha256: 'a'.repeat(64),
      arguments: { path: `src/file-${i}.ts`, offset: 0 },
      decision: 'allow',
      policy_reason: 'no rule matched',
      status: 'success',
      result_sha256: 'b'.repeat(64),
      replayed: false,
    },
    false,
  );
  if (i % 10_000 === 0) await trail.flush();
}
await trail.close();
const written = performance.now() - started;
const bytes = Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0]);
console.log(`wrote ${count.toLocaleString('en')} records (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${(written / 1000).toFixed(1)} s`);

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
console.log('toolgate audit verify (its output, then GNU time):');
try {
  execFileSync(
    '/usr/bin/time',
    ['-f', '%e s wall, %M KiB peak RSS', process.execPath, '--import', 'tsx', cli, 'audit', 'verify', '--url', pathToFileURL(dir).href],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
} catch {
  process.exitCode = 1;
}

started = performance.now();
const newest = await queryAudit(store, { tenant: 'tenant-3', limit: 100 });
console.log(`GET /audit scan, newest 100 of a tenant: ${newest.length} records in ${(performance.now() - started).toFixed(0)} ms`);
started = performance.now();
const none = await queryAudit(store, { tenant: 'tenant-3', sessionId: 'no-such-session', limit: 100 });
console.log(
  `GET /audit scan matching nothing (every record read): ${none.length} records in ${(performance.now() - started).toFixed(0)} ms`,
);
if (values.keep) console.log(`trail kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
