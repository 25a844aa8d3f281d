import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool } from '../../helpers/tools.js';

/**
 * The per-call budget (default 50 KB) and the batch budget
 * (default 200 KB) count bytes of the serialized payload, 1 KB = 1024 bytes.
 */

const KB = 1024;
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The text size whose success payload `{"status":"success","text":"…","truncated":null}` serializes to exactly `target` bytes. */
function textSizeFor(target: number, char = 'x'): number {
  const overhead = bytes(JSON.stringify({ status: 'success', text: '', truncated: null }));
  return (target - overhead) / bytes(char);
}

describe('budgets count serialized payload bytes, 1 KB = 1024', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ tools: [bigOutputTool('Big')] });
  });
  afterAll(() => t.close());

  it('per call: a payload of exactly 50 × 1024 bytes stays whole; one byte more is cut to the budget', async () => {
    const exact = await execute(t.app, [{ id: 'a', name: 'Big', arguments: { size: textSizeFor(50 * KB) } }]);
    expect(bytes(exact.body.messages[0].content)).toBe(50 * KB);
    expect(exact.body.results[0]).toMatchObject({ status: 'success', truncated: null });

    const over = await execute(t.app, [{ id: 'b', name: 'Big', arguments: { size: textSizeFor(50 * KB) + 1 } }]);
    expect(over.body.results[0].status).toBe('partial');
    expect(over.body.results[0].truncated).toMatchObject({
      original_bytes: textSizeFor(50 * KB) + 1,
      url: expect.stringMatching(/^\/outputs\//),
    });
    expect(bytes(over.body.messages[0].content)).toBeLessThanOrEqual(50 * KB);
    // Cut to the budget, not far under it.
    expect(bytes(over.body.messages[0].content)).toBeGreaterThan(50 * KB - 64);
  });

  it('per call: multi-byte text is counted in bytes, not characters', async () => {
    // 30,000 'é' are 30,000 characters but 60,000 bytes: over a 51,200-byte budget.
    const { body } = await execute(t.app, [{ id: 'c', name: 'Big', arguments: { size: 30_000, char: 'é' } }]);
    expect(body.results[0].status).toBe('partial');
    expect(bytes(body.messages[0].content)).toBeLessThanOrEqual(50 * KB);
    expect(body.results[0].truncated.original_bytes).toBe(60_000);
  });

  it('per batch: payloads totalling exactly 200 × 1024 bytes stay whole; one byte more cuts the largest', async () => {
    const each = 40 * KB;
    const exact = await execute(
      t.app,
      Array.from({ length: 5 }, (_, i) => ({ id: `e${i}`, name: 'Big', arguments: { size: textSizeFor(each) } })),
    );
    const total = exact.body.messages.reduce((n: number, m: { content: string }) => n + bytes(m.content), 0);
    expect(total).toBe(200 * KB);
    expect(exact.body.results.every((r: any) => r.truncated === null && r.status === 'success')).toBe(true);

    const calls = [
      ...Array.from({ length: 4 }, (_, i) => ({ id: `o${i}`, name: 'Big', arguments: { size: textSizeFor(each) } })),
      { id: 'largest', name: 'Big', arguments: { size: textSizeFor(each) + 1 } },
    ];
    const over = await execute(t.app, calls);
    const sizes = over.body.messages.map((m: { content: string }) => bytes(m.content));
    expect(sizes.reduce((a: number, b: number) => a + b, 0)).toBeLessThanOrEqual(200 * KB);
    // Only the largest is cut; the smaller ones stay whole.
    expect(over.body.results.map((r: any) => r.truncated === null)).toEqual([true, true, true, true, false]);
    expect(over.body.results[4].status).toBe('partial');
    const whole = await t.app.inject({ method: 'GET', url: over.body.results[4].truncated.url });
    expect(whole.body).toBe('x'.repeat(textSizeFor(each) + 1));
  });

  it('per batch: small payloads stay whole while the large ones share the rest', async () => {
    const calls = [
      { id: 's1', name: 'Big', arguments: { size: 2_000 } },
      { id: 'l1', name: 'Big', arguments: { size: 50_000 } },
      { id: 's2', name: 'Big', arguments: { size: 3_000 } },
      { id: 'l2', name: 'Big', arguments: { size: 50_000 } },
      { id: 'l3', name: 'Big', arguments: { size: 50_000 } },
      { id: 'l4', name: 'Big', arguments: { size: 50_000 } },
      { id: 'l5', name: 'Big', arguments: { size: 50_000 } },
    ];
    const { body } = await execute(t.app, calls);
    const sizes = body.messages.map((m: { content: string }) => bytes(m.content));
    expect(sizes.reduce((a: number, b: number) => a + b, 0)).toBeLessThanOrEqual(200 * KB);
    expect(body.results[0]).toMatchObject({ truncated: null, text: 'x'.repeat(2_000) });
    expect(body.results[2]).toMatchObject({ truncated: null, text: 'x'.repeat(3_000) });
    const cut = [1, 3, 4, 5, 6].map((i) => sizes[i]);
    for (const i of [1, 3, 4, 5, 6]) expect(body.results[i].truncated).not.toBeNull();
    // Cut alike, largest first: no large payload is more than a few bytes apart from the others.
    expect(Math.max(...cut) - Math.min(...cut)).toBeLessThan(16);
    for (const i of [1, 3, 4, 5, 6]) {
      const whole = await t.app.inject({ method: 'GET', url: body.results[i].truncated.url });
      expect(whole.body).toHaveLength(50_000);
    }
  });
});
