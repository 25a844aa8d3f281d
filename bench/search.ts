/**
 * `npm run bench:search`: the cost of one tool search, apart from HTTP — the
 * BM25F index over the realistic catalog of test/fixtures/catalog (510 tools)
 * and over ten copies of it (5,100 tools, each copy under its own name
 * prefix), searched with the pinned query table. Runs the build (dist/), as
 * the gateway does.
 */
import type * as Search from '../src/registry/search.js';
import type * as Builtins from '../src/tools/builtin/index.js';
import type * as PolicyModule from '../src/policy/index.js';
import { BENCH_QUERIES, catalogTools } from './shared/search-queries.js';

const build = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href) as Promise<T>;
const { buildIndex } = await build<typeof Search>('registry/search.js');
const { createBuiltinTools } = await build<typeof Builtins>('tools/builtin/index.js');
const { createPolicy } = await build<typeof PolicyModule>('policy/index.js');

interface Doc {
  name: string;
  description: string;
  parameters: unknown;
}

/** The fixture's tools and the built-ins: what the pinned table runs over. */
function realisticCatalog(): Doc[] {
  return [
    ...catalogTools(),
    ...createBuiltinTools(createPolicy([])).map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    })),
  ];
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function measure(docs: readonly Doc[]): { tools: number; buildMs: number; p50Us: number; p99Us: number; meanUs: number } {
  const started = performance.now();
  const index = buildIndex(docs);
  const buildMs = performance.now() - started;
  for (let i = 0; i < 3; i++) for (const q of BENCH_QUERIES) index.search(q, 10);
  const times: number[] = [];
  for (let round = 0; round < 20; round++) {
    for (const q of BENCH_QUERIES) {
      const t0 = performance.now();
      index.search(q, 10);
      times.push((performance.now() - t0) * 1000);
    }
  }
  times.sort((a, b) => a - b);
  return {
    tools: docs.length,
    buildMs,
    p50Us: percentile(times, 0.5),
    p99Us: percentile(times, 0.99),
    meanUs: times.reduce((a, b) => a + b, 0) / times.length,
  };
}

const base = realisticCatalog();
const large = Array.from({ length: 10 }, (_, k) => base.map((d) => ({ ...d, name: `svc${k}_${d.name}`.slice(0, 64) }))).flat();
console.log(`${BENCH_QUERIES.length} distinct queries, 20 rounds each, limit 10\n`);
console.log('| tools | index build ms | search p50 µs | search p99 µs | mean µs |');
console.log('|---:|---:|---:|---:|---:|');
for (const docs of [base, large]) {
  const r = measure(docs);
  console.log(`| ${r.tools} | ${r.buildMs.toFixed(1)} | ${r.p50Us.toFixed(0)} | ${r.p99Us.toFixed(0)} | ${r.meanUs.toFixed(0)} |`);
}
