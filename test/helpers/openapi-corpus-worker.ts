import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { checkOpenApi } from '../../src/catalog/openapi-check.js';
import { renderTools } from '../../src/protocol/providers/index.js';
import { createHttpDispatchers } from '../../src/tools/http/index.js';
import { geminiSubsetProblems } from './gemini-subset.js';

/** One corpus document checked in a worker thread (openapi-corpus.ts): what start-up would make of it as an `openapi_sources` entry. */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const dispatchers = createHttpDispatchers();
// ajv's "unknown format … ignored" lines: what the documents hold, not what the corpus measures.
console.warn = () => undefined;

function operationsIn(file: string): number {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
  return Object.values(doc.paths ?? {}).reduce((sum, item) => sum + METHODS.filter((m) => typeof item?.[m] === 'object').length, 0);
}

parentPort!.on('message', async ({ file, baseUrl }: { file: string; baseUrl: string }) => {
  const started = performance.now();
  const operations = operationsIn(file);
  // The documents are measured, not the machine: a load gets most of the 60 s its worker has (the default 10 s is a gateway's).
  const check = await checkOpenApi(file, { dispatchers, baseDir: '/', baseUrl, allowPrivateNetwork: true, specTimeoutMs: 50_000 });
  const gemini = renderTools('gemini', check.tools, false).flatMap((declaration) =>
    declaration.parameters ? geminiSubsetProblems(declaration.parameters).map((p) => `${String(declaration.name)}${p}`) : [],
  );
  parentPort!.postMessage({
    operations,
    tools: check.tools.length,
    badNames: check.tools.map((t) => t.name).filter((name) => !/^[a-zA-Z0-9_-]{1,64}$/.test(name)),
    skipped: check.verdicts.flatMap((v) => (v.reason !== undefined ? [`${v.label}: ${v.reason}`] : [])),
    problems: check.problems,
    sizes: check.sizes,
    limits: check.limits,
    gemini,
    ms: Math.round(performance.now() - started),
  });
});
