import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { applyBatchBudget, applyCallBudget, payloadBytes, truncationRecord, type Spill } from '../../../src/pipeline/budget.js';
import { visiblePayload } from '../../../src/protocol/result.js';
import { createReadTool } from '../../../src/tools/builtin/read.js';
import type { CallError } from '../../../src/protocol/errors.js';
import type { Payload } from '../../../src/protocol/result.js';
import { createFsSpillStore } from '../../../src/spill/fs.js';
import { ManualClock } from '../../../src/shared/clock.js';

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

/** The kept part of a cut text and its note line (the note alone when nothing was kept). */
function split(text: string): { kept: string; note: string } {
  const at = text.lastIndexOf('\n');
  return at === -1 ? { kept: '', note: text } : { kept: text.slice(0, at), note: text.slice(at + 1) };
}

/** A cut keeps whole lines of the original, and one more line would not fit. */
function expectLineCut(original: string, cut: Payload, budget: number): void {
  const { kept, note } = split(cut.text);
  expect(note).toMatch(/^\[cut .*GET \/outputs\/\S+ for the whole output \(\d+ bytes\)\]$/);
  expect(original.startsWith(kept)).toBe(true);
  if (kept !== '') expect(original[kept.length]).toBe('\n');
  const next = original.indexOf('\n', kept.length + 1);
  if (next !== -1) expect(payloadBytes({ ...cut, text: `${original.slice(0, next)}\n${note}` })).toBeGreaterThan(budget);
}

describe('applyCallBudget', () => {
  it('leaves a payload within the budget untouched and spills nothing', async () => {
    const { spill, calls } = fakeSpill();
    const payload = ok('small', { data: { n: 1 } });
    const exact = payloadBytes(payload);
    const result = await applyCallBudget(payload, exact, spill);
    expect(result).toEqual({ payload, bytes: exact, spilledBytes: 0, json: JSON.stringify(visiblePayload(payload)) });
    expect(calls).toEqual([]);
  });

  it('cuts a payload over the budget to at most the budget and spills the full text once', async () => {
    const { spill, calls } = fakeSpill();
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}: "quoted" \\ tab\there`).join('\n');
    const budget = 50 * KB;
    const result = await applyCallBudget(ok(text), budget, spill);

    expect(result.bytes).toBe(payloadBytes(result.payload));
    expect(result.bytes).toBeLessThanOrEqual(budget);
    expectLineCut(text, result.payload, budget);
    expect(split(result.payload.text).note).toBe(
      `[cut after line ${split(result.payload.text).kept.split('\n').length}: GET /outputs/spill-0000000000000001 for the whole output (${Buffer.byteLength(text)} bytes)]`,
    );
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

  it('never splits a surrogate pair, a multibyte character or a line, whatever the budget', async () => {
    const texts = ['😀🎉👩‍👩‍👧'.repeat(40), '漢字テキストの例です。'.repeat(40), 'a😀"\n\u0001漢\\'.repeat(40), 'x\ud800y\udc00z😀'.repeat(40)];
    for (const text of texts) {
      for (let budget = 240; budget <= 600; budget++) {
        const { spill } = fakeSpill();
        const { payload, bytes } = await applyCallBudget(ok(text), budget, spill);
        expect(bytes).toBe(payloadBytes(payload));
        expect(bytes).toBeLessThanOrEqual(budget);
        const { kept, note } = split(payload.text);
        expect(text.startsWith(kept)).toBe(true);
        // A text of lines is cut after a whole line; one long line inside it, and the note says so.
        // Cut after a whole line; inside the first line only when not even that one fits, and the note says so.
        if (kept !== '' && text[kept.length] !== '\n') {
          expect(kept.includes('\n')).toBe(false);
          expect(note).toMatch(/^\[cut inside line 1: /);
        }
        expect(/[\ud800-\udbff]$/.test(kept) && /^[\udc00-\udfff]/.test(text.slice(kept.length))).toBe(false);
        // Lone surrogates in the source stay lone (and escaped); the cut adds none.
        if (!LONE_SURROGATE.test(text)) {
          expect(LONE_SURROGATE.test(payload.text)).toBe(false);
          expect(Buffer.from(JSON.stringify(payload), 'utf8').toString('utf8')).toBe(JSON.stringify(payload));
        }
      }
    }
  });

  it('keeps small data and spills the full text for /outputs to serve', async () => {
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

    // A tool's own cut within the budget still ends with the note saying where the rest is.
    const small = ok('line one\nline tw', { status: 'partial', truncated: record });
    const noted = (await applyCallBudget(small, 50 * KB, spill)).payload;
    expect(noted.text).toBe('line one\n[cut after line 1: GET /outputs/tool-spill for the whole output (10000000 bytes)]');
    expect((await applyCallBudget(noted, 50 * KB, spill)).payload).toEqual(noted);
    expect(calls).toEqual([]);
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
      const id = result.payload.truncated!.url!.replace('/outputs/', '');
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

describe('what the model sees of a cut: the record, never the store', () => {
  const readHint = createReadTool({} as never).resumeHint!;
  const numbered = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${String(from + i).padStart(6)}\t${'é'.repeat(i % 50)} line ${from + i}`).join('\n');

  it('counts and shows the record without the store uri; results keep it', async () => {
    const { spill } = fakeSpill();
    const { payload, bytes } = await applyCallBudget(ok('x\n'.repeat(4 * KB)), KB, spill);
    expect(payload.truncated?.uri).toBe('file:///var/spill/spill-0000000000000001');
    const visible = visiblePayload(payload);
    expect(visible.truncated).toEqual({
      original_bytes: 8 * KB,
      url: '/outputs/spill-0000000000000001',
      sha256: payload.truncated!.sha256,
    });
    expect(JSON.stringify(visible)).not.toContain('file:');
    expect(bytes).toBe(Buffer.byteLength(JSON.stringify(visible)));
  });

  it('a cut Read ends on a whole line and says the offset to continue from, within every budget', async () => {
    const text = numbered(120, 400);
    for (let budget = 400; budget <= 6000; budget += 37) {
      const { payload, bytes } = await applyCallBudget(ok(text), budget, fakeSpill().spill, readHint);
      expect(bytes).toBeLessThanOrEqual(budget);
      expect(bytes).toBe(payloadBytes(payload));
      const { kept, note } = split(payload.text);
      expect(text.startsWith(kept), `budget ${budget}`).toBe(true);
      expect(text[kept.length], `budget ${budget}: ${payload.text}`).toBe('\n');
      const last = Number(/(\d+)\t[^\n]*$/.exec(kept)![1]);
      expect(note).toBe(
        `[cut after line ${last}: call Read with offset=${last + 1} to continue, or GET /outputs/spill-0000000000000001 for the whole output (${Buffer.byteLength(text)} bytes)]`,
      );
    }
  });

  it('a deeper batch cut replaces the note instead of keeping the old one', async () => {
    const { spill, calls } = fakeSpill();
    const first = await applyCallBudget(ok(numbered(1, 2000)), 50 * KB, spill, readHint);
    const result = await applyBatchBudget([first.payload, ok('y'.repeat(20 * KB))], 30 * KB, spill, [readHint, undefined]);
    expect(calls).toHaveLength(2);
    const text = result.payloads[0]!.text;
    expect(text.match(/\[cut /g)).toHaveLength(1);
    const last = Number(/(\d+)\t[^\n]*\n\[cut/.exec(text)![1]);
    expect(
      text.endsWith(
        `call Read with offset=${last + 1} to continue, or GET /outputs/spill-0000000000000001 for the whole output (${first.payload.truncated!.original_bytes} bytes)]`,
      ),
    ).toBe(true);
    expect(result.payloads.reduce((sum, p) => sum + payloadBytes(p), 0)).toBeLessThanOrEqual(30 * KB);
  });

  it('a Read whose first line alone does not fit says to read it with a smaller limit', async () => {
    const text = `${String(7).padStart(6)}\t${'z'.repeat(1500)}\n${String(8).padStart(6)}\tshort`;
    const { payload, bytes } = await applyCallBudget(ok(text), 600, fakeSpill().spill, readHint);
    expect(bytes).toBeLessThanOrEqual(600);
    expect(payload.text).toMatch(
      /^\[cut before line 7: call Read with offset=7 and a smaller limit, or GET \/outputs\/\S+ for the whole output \(\d+ bytes\)\]$/,
    );
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
