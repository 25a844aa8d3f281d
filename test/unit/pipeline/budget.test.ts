import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { applyBatchBudget, applyCallBudget, payloadBytes, truncationRecord, type Spill } from '../../../src/pipeline/budget.js';
import type { CallError } from '../../../src/protocol/errors.js';
import type { Payload } from '../../../src/protocol/result.js';
import { createFsSpillStore } from '../../../src/spill/fs.js';
import { ManualClock } from '../../../src/state/clock.js';

const KB = 1024;
const sha256 = (content: string) => createHash('sha256').update(content, 'utf8').digest('hex');

/** A spill that records what it was given and answers with predictable ids. */
function fakeSpill(): { spill: Spill; calls: string[] } {
  const calls: string[] = [];
  const spill: Spill = async (content) => {
    calls.push(content);
    const id = `spill-${String(calls.length).padStart(16, '0')}`;
    return { id, uri: `file:///var/spill/${id}`, bytes: Buffer.byteLength(content, 'utf8'), sha256: sha256(content) };
  };
  return { spill, calls };
}

function ok(text: string, extra: Partial<Payload> = {}): Payload {
  return { status: 'success', text, ...extra, truncated: extra.truncated ?? null };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The cut is the longest one that fits: one more character (a whole pair) would not. */
function expectTightCut(original: string, cut: Payload, budget: number): void {
  const next = cut.text.length + (/[\ud800-\udbff]/.test(original[cut.text.length] ?? '') ? 2 : 1);
  if (next <= original.length) expect(payloadBytes({ ...cut, text: original.slice(0, next) })).toBeGreaterThan(budget);
}

describe('applyCallBudget', () => {
  it('leaves a payload within the budget untouched and spills nothing', async () => {
    const { spill, calls } = fakeSpill();
    const payload = ok('small', { data: { n: 1 } });
    const exact = payloadBytes(payload);
    const result = await applyCallBudget(payload, exact, spill);
    expect(result).toEqual({ payload, bytes: exact, spilledBytes: 0 });
    expect(calls).toEqual([]);
  });

  it('cuts a payload over the budget to at most the budget and spills the full text once', async () => {
    const { spill, calls } = fakeSpill();
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}: "quoted" \\ tab\there`).join('\n');
    const budget = 50 * KB;
    const result = await applyCallBudget(ok(text), budget, spill);

    expect(result.bytes).toBe(payloadBytes(result.payload));
    expect(result.bytes).toBeLessThanOrEqual(budget);
    expectTightCut(text, result.payload, budget);
    expect(text.startsWith(result.payload.text)).toBe(true);
    expect(calls).toEqual([text]);
    expect(result.spilledBytes).toBe(Buffer.byteLength(text));
    expect(result.payload.status).toBe('partial');
    expect(result.payload.truncated).toEqual({
      original_bytes: Buffer.byteLength(text),
      uri: 'file:///var/spill/spill-0000000000000001',
      url: '/outputs/spill-0000000000000001',
      sha256: sha256(text),
    });
  });

  it('measures and returns only the payload fields of a full call result', async () => {
    const { spill, calls } = fakeSpill();
    const result = { tool_call_id: 'call_1', name: 'Read', stats: { time_ms: 1, output_bytes: 5 }, replayed: false, ...ok('hello') };
    const budgeted = await applyCallBudget(result, payloadBytes(ok('hello')), spill);
    expect(budgeted.payload).toEqual(ok('hello'));
    expect(Object.keys(budgeted.payload)).toEqual(['status', 'text', 'truncated']);
    expect(calls).toEqual([]);
  });

  it('keeps an error an error when it cuts it', async () => {
    const { spill } = fakeSpill();
    const error: CallError = { code: 'EXECUTION_FAILED', message: 'boom', retryable: false };
    const result = await applyCallBudget({ status: 'error', text: 'x'.repeat(10 * KB), error, truncated: null }, KB, spill);
    expect(result.payload.status).toBe('error');
    expect(result.payload.error).toEqual(error);
    expect(result.bytes).toBeLessThanOrEqual(KB);
  });

  it('never splits a surrogate pair or a multibyte character, whatever the budget', async () => {
    const texts = [
      '😀🎉👩‍👩‍👧'.repeat(40),
      '漢字テキストの例です。'.repeat(40),
      'a😀"\n\u0001漢\\'.repeat(40),
      'x\ud800y\udc00z😀'.repeat(40),
    ];
    for (const text of texts) {
      for (let budget = 240; budget <= 600; budget++) {
        const { spill } = fakeSpill();
        const { payload, bytes } = await applyCallBudget(ok(text), budget, spill);
        expect(bytes).toBe(payloadBytes(payload));
        expect(bytes).toBeLessThanOrEqual(budget);
        expect(text.startsWith(payload.text)).toBe(true);
        expect(/[\ud800-\udbff]$/.test(payload.text) && /^[\udc00-\udfff]/.test(text.slice(payload.text.length))).toBe(false);
        // Lone surrogates in the source stay lone (and escaped); the cut adds none.
        if (!LONE_SURROGATE.test(text)) {
          expect(LONE_SURROGATE.test(payload.text)).toBe(false);
          expect(Buffer.from(JSON.stringify(payload), 'utf8').toString('utf8')).toBe(JSON.stringify(payload));
        }
        expectTightCut(text, payload, budget);
      }
    }
  });

  it('keeps small data and spills the full text (contract 5: /outputs serves the text)', async () => {
    const { spill, calls } = fakeSpill();
    const data = { file_mtime_ms: 1767225600000, file_size_bytes: 123456 };
    const text = 'x'.repeat(4 * KB);
    const result = await applyCallBudget(ok(text, { data }), KB, spill);
    expect(result.payload.data).toEqual(data);
    expect(result.bytes).toBeLessThanOrEqual(KB);
    expect(calls).toEqual([text]);
    expect(result.payload.truncated?.sha256).toBe(sha256(text));
  });

  it('drops data that alone would not fit; the spill holds the text', async () => {
    const { spill, calls } = fakeSpill();
    const data = { matches: Array.from({ length: 500 }, (_, i) => ({ path: `src/file-${i}.ts`, line: i })) };
    const result = await applyCallBudget(ok('500 matches', { data }), KB, spill);
    expect(result.payload).not.toHaveProperty('data');
    expect(result.payload.text).toBe('500 matches');
    expect(result.bytes).toBeLessThanOrEqual(KB);
    expect(calls).toEqual(['500 matches']);
  });

  it('reuses the record of a tool that spilled its own output', async () => {
    const { spill, calls } = fakeSpill();
    const record = truncationRecord({ id: 'tool-spill', uri: 'file:///var/spill/tool-spill', bytes: 10_000_000, sha256: 'ab'.repeat(32) });
    const text = 'y'.repeat(80 * KB);
    const result = await applyCallBudget(ok(text, { status: 'partial', truncated: record }), 50 * KB, spill);
    expect(calls).toEqual([]);
    expect(result.spilledBytes).toBe(0);
    expect(result.payload.truncated).toEqual(record);
    expect(result.bytes).toBeLessThanOrEqual(50 * KB);

    const small = ok('short', { status: 'partial', truncated: record });
    expect((await applyCallBudget(small, 50 * KB, spill)).payload).toEqual(small);
  });

  it('cuts to the minimum when even status, error and record exceed the budget', async () => {
    const { spill, calls } = fakeSpill();
    const error: CallError = { code: 'UPSTREAM_ERROR', message: 'bad', retryable: true, details: { body: 'z'.repeat(2 * KB) } };
    const result = await applyCallBudget({ status: 'error', text: 'some text', data: { a: 1 }, error, truncated: null }, KB, spill);
    expect(result.payload.text).toBe('');
    expect(result.payload).not.toHaveProperty('data');
    expect(result.payload.error).toEqual(error);
    expect(result.bytes).toBe(payloadBytes(result.payload));
    expect(result.bytes).toBeGreaterThan(KB);
    expect(calls).toHaveLength(1);
  });

  it('serializes a very large text once, and only budget-sized prefixes after that', async () => {
    const { spill } = fakeSpill();
    const text = 'abcdefgh😀\n'.repeat(200_000);
    const budget = 50 * KB;
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const result = await applyCallBudget(ok(text), budget, spill);
      expect(result.bytes).toBeLessThanOrEqual(budget);
      const serialized = stringify.mock.results.reduce((sum, r) => sum + String(r.value).length, 0);
      expect(serialized).toBeLessThan(text.length + 64 * budget);
    } finally {
      stringify.mockRestore();
    }
  });

  it('leaves the whole output retrievable from a real spill store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-budget-'));
    try {
      const store = createFsSpillStore({ dir, ttlMs: 60_000, clock: new ManualClock() });
      const text = '日本語のテキスト 😀 '.repeat(5000);
      const result = await applyCallBudget(ok(text), 8 * KB, (content) => store.put('acme', content));
      const id = result.payload.truncated!.url.replace('/outputs/', '');
      const read = await store.get('acme', id);
      const chunks: Buffer[] = [];
      for await (const chunk of read!.body as Readable) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(text);
      expect(read!.sha256).toBe(result.payload.truncated!.sha256);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('applyBatchBudget', () => {
  const total = (payloads: Payload[]) => payloads.reduce((sum, p) => sum + payloadBytes(p), 0);

  it('leaves a batch within the budget untouched', async () => {
    const { spill, calls } = fakeSpill();
    const payloads = [ok('a'), ok('b'.repeat(1000))];
    const result = await applyBatchBudget(payloads, 10 * KB, spill);
    expect(result).toEqual({ payloads, spilledBytes: 0, cut: 0 });
    expect(calls).toEqual([]);
  });

  it('cuts only the huge payload when the others fit beside it', async () => {
    const { spill, calls } = fakeSpill();
    const payloads = [ok('a'.repeat(KB)), ok('h'.repeat(100 * KB)), ok('b'.repeat(2 * KB))];
    const budget = 20 * KB;
    const result = await applyBatchBudget(payloads, budget, spill);
    expect(result.cut).toBe(1);
    expect(result.payloads[0]).toEqual(payloads[0]);
    expect(result.payloads[2]).toEqual(payloads[2]);
    expect(result.payloads[1]!.truncated?.original_bytes).toBe(100 * KB);
    expect(calls).toEqual([payloads[1]!.text]);
    expect(total(result.payloads)).toBeLessThanOrEqual(budget);
    expect(budget - total(result.payloads)).toBeLessThan(8);
  });

  it('cuts payloads that are all large to the same size', async () => {
    const { spill, calls } = fakeSpill();
    const payloads = [30, 34, 31, 40, 33].map((kb, i) => ok(String(i).repeat(kb * KB)));
    const budget = 100 * KB;
    const result = await applyBatchBudget(payloads, budget, spill);
    const sizes = result.payloads.map(payloadBytes);
    expect(result.cut).toBe(5);
    expect(calls).toHaveLength(5);
    expect(total(result.payloads)).toBeLessThanOrEqual(budget);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    for (const [i, p] of result.payloads.entries()) {
      expect(p.status).toBe('partial');
      expect(p.truncated?.sha256).toBe(sha256(payloads[i]!.text));
    }
  });

  it('cuts the largest first, including one already cut, and reuses its record', async () => {
    const { spill, calls } = fakeSpill();
    const first = await applyCallBudget(ok('r'.repeat(80 * KB)), 50 * KB, spill);
    const record = first.payload.truncated;
    const payloads = [first.payload, ok('s'.repeat(10 * KB)), ok('t'.repeat(KB))];
    const result = await applyBatchBudget(payloads, 30 * KB, spill);
    expect(calls).toHaveLength(1);
    expect(result.spilledBytes).toBe(0);
    expect(result.payloads[0]!.truncated).toEqual(record);
    expect(result.payloads[1]).toEqual(payloads[1]);
    expect(result.payloads[2]).toEqual(payloads[2]);
    expect(total(result.payloads)).toBeLessThanOrEqual(30 * KB);
  });

  it('is deterministic', async () => {
    const make = () => [ok('😀'.repeat(20 * KB)), ok('漢'.repeat(15 * KB), { data: { n: 1 } }), ok('x'.repeat(500))];
    const a = await applyBatchBudget(make(), 40 * KB, fakeSpill().spill);
    const b = await applyBatchBudget(make(), 40 * KB, fakeSpill().spill);
    expect(a).toEqual(b);
    expect(total(a.payloads)).toBeLessThanOrEqual(40 * KB);
  });

  it('cuts every payload to its minimum when the minimums alone exceed the budget, spilling each once', async () => {
    const { spill, calls } = fakeSpill();
    const payloads = Array.from({ length: 10 }, (_, i) => ok(`${i}`.repeat(KB)));
    const result = await applyBatchBudget(payloads, 100, spill);
    expect(calls).toHaveLength(10);
    expect(result.cut).toBe(10);
    for (const p of result.payloads) {
      expect(p.text).toBe('');
      expect(p.truncated).not.toBeNull();
    }
    expect(result.spilledBytes).toBe(10 * KB);
  });

  it('drops data in the batch cut; the spill holds the text', async () => {
    const { spill, calls } = fakeSpill();
    const data = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const payloads = [ok('table of 200 rows', { data }), ok('q'.repeat(8 * KB))];
    const result = await applyBatchBudget(payloads, 2 * KB, spill);
    expect(result.payloads[0]).not.toHaveProperty('data');
    expect(calls[0]).toBe('table of 200 rows');
    expect(total(result.payloads)).toBeLessThanOrEqual(2 * KB);
  });
});
