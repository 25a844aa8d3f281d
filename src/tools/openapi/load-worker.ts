import { parentPort, workerData } from 'node:worker_threads';
import { planDocument } from './plan.js';
import type { LoadInput, LoadOutput } from './load.js';

// The worker of one document's load (load.ts): parse, read and plan it, post the verdicts, end.
const input = workerData as LoadInput;
let output: LoadOutput;
try {
  output = { ok: true, document: await planDocument(Buffer.from(input.bytes).toString('utf8'), input.origin) };
} catch (err) {
  output = { ok: false, message: (err as Error).message };
}
parentPort!.postMessage(output);
