import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { applyCallBudget, payloadBytes, truncationRecord } from '../../../src/pipeline/budget.js';
import { visiblePayload } from '../../../src/protocol/result.js';
import type { CallError } from '../../../src/protocol/errors.js';
import type { Payload } from '../../../src/protocol/result.js';
import { createFsSpillStore } from '../../../src/spill/fs.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { fakeSpill, KB, ok, sha256, split } from './budget-fixtures.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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

  it('never cuts a redaction marker in half: a one-line output of markers is cut before one a budget would split', async () => {
    const text = 'key=[REDACTED:github_token] '.repeat(60);
    for (let budget = 240; budget <= 600; budget++) {
      const { spill } = fakeSpill();
      const { payload } = await applyCallBudget(ok(text), budget, spill);
      const { kept } = split(payload.text);
      expect(text.startsWith(kept)).toBe(true);
      expect(kept.replace(/\[REDACTED:github_token\]/g, '')).not.toContain('[');
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
