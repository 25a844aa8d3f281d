import { describe, expect, it } from 'vitest';
import { applyBatchBudget, applyCallBudget, payloadBytes } from '../../../src/pipeline/budget.js';
import type { Payload } from '../../../src/protocol/result.js';
import { fakeSpill, KB, ok, sha256 } from './budget-fixtures.js';

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
