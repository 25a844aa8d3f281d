import { describe, expect, it } from 'vitest';
import { applyBatchBudget, applyCallBudget, payloadBytes } from '../../../src/pipeline/budget.js';
import { visiblePayload } from '../../../src/protocol/result.js';
import { createReadTool } from '../../../src/tools/builtin/read.js';
import { fakeSpill, KB, ok, split } from './budget-fixtures.js';

describe('what the model sees of a cut: the record, never the store', () => {
  const readHint = createReadTool().resumeHint!;
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
