import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/schema.js';
import { createHttpTool } from '../../../src/tools/http/index.js';
import {
  callContext,
  createTempSpill,
  createTestDispatchers,
  expectTripwireQuiet,
  httpToolConfig,
  startServer,
  type TempSpill,
  type TestServer,
} from './helpers.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

// The test measures live memory, so it needs to force collections; this fork is its own process.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
const dispatchers = createTestDispatchers();
afterEach(expectTripwireQuiet);
let server: TestServer;
let spill: TempSpill;

/** Deterministic content from 26 shared chunks, so the server side allocates nothing per chunk. */
const CHUNKS = Array.from({ length: 26 }, (_, i) => Buffer.alloc(CHUNK, String.fromCharCode(97 + i)));
function chunkAt(i: number): Buffer {
  return CHUNKS[i % 26]!;
}

function expectedSha(totalBytes: number): string {
  const hash = createHash('sha256');
  for (let i = 0; i * CHUNK < totalBytes; i++) hash.update(chunkAt(i).subarray(0, Math.min(CHUNK, totalBytes - i * CHUNK)));
  return hash.digest('hex');
}

beforeAll(async () => {
  spill = await createTempSpill();
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/utf8') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('é'.repeat(100));
      return;
    }
    const total = Number(url.searchParams.get('bytes'));
    res.writeHead(200, { 'content-type': 'application/json' });
    let i = 0;
    const pump = () => {
      while (i * CHUNK < total) {
        const chunk = chunkAt(i).subarray(0, Math.min(CHUNK, total - i * CHUNK));
        i++;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
});
afterAll(async () => {
  await server.close();
  await spill.cleanup();
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

function tool(http: Partial<ToolConfig['http']> = {}) {
  return createHttpTool(httpToolConfig({ method: 'GET', allow_private_network: true, url: `${server.origin}/blob`, ...http }), {
    dispatchers,
    credentials: createEnvCredentials({}),
  });
}

describe('max_response_bytes: the body is streamed, cut, and spilled whole', () => {
  it('a 20 MB body: the result holds the first 1 MiB, the spill store the whole body, memory stays bounded', async () => {
    const total = 20 * MiB;
    // Live memory, not allocation: collect before each sample so that chunks already written
    // (garbage the next collection frees) do not count. Holding the body would keep 20 MB live.
    gc();
    const baseline = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      gc();
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed - baseline.heapUsed + (now.arrayBuffers - baseline.arrayBuffers));
    }, 5);
    const out = await tool()
      .run({ bytes: total }, callContext(15_000, spill.spill))
      .finally(() => clearInterval(sampler));

    expect(out.partial).toBe(true);
    expect(Buffer.byteLength(out.text)).toBe(MiB);
    expect(out.data).toBeUndefined();
    expect(out.spilled?.originalBytes).toBe(total);
    expect(out.spilled?.record.sha256).toBe(expectedSha(total));
    expect((await spill.read(out.spilled!.record)).length).toBe(total);
    // Streamed: many socket-sized chunks reached the store, none anywhere near the whole body.
    expect(spill.chunkSizes.length).toBeGreaterThan(100);
    expect(Math.max(...spill.chunkSizes)).toBeLessThanOrEqual(MiB);
    // The 1 MiB head, its text, and chunks in flight: a few MiB.
    expect(peak).toBeLessThan(8 * MiB);
  });

  it('a body of exactly max_response_bytes is whole; one byte more is cut and spilled', async () => {
    const exact = await tool({ max_response_bytes: 1000 }).run({ bytes: 1000 }, callContext(5000, spill.spill));
    expect(exact.partial).toBeUndefined();
    expect(exact.text).toHaveLength(1000);

    const over = await tool({ max_response_bytes: 1000 }).run({ bytes: 1001 }, callContext(5000, spill.spill));
    expect(over).toMatchObject({ partial: true, spilled: { originalBytes: 1001 } });
    expect(over.text).toHaveLength(1000);
  });

  it('the cut never splits a UTF-8 character', async () => {
    // 100 × "é" (2 bytes each); a 15-byte cap falls inside the 8th character.
    const out = await tool({ url: `${server.origin}/utf8`, max_response_bytes: 15 }).run({}, callContext(5000, spill.spill));
    expect(out.text).toBe('é'.repeat(7));
    expect(out.spilled?.originalBytes).toBe(200);
  });
});
