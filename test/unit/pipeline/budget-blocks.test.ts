import { describe, expect, it } from 'vitest';
import { applyBatchBudget, applyCallBudget, fitBatch, payloadBytes } from '../../../src/pipeline/budget.js';
import type { ContentBlock } from '../../../src/protocol/content.js';
import { payloadJson, type Payload } from '../../../src/protocol/result.js';
import type { SpillOutcome } from '../../../src/spill/spill-store.js';
import { MAX_INLINE_IMAGES } from '../../../src/tools/content.js';
import { png } from '../../helpers/images.js';
import { fakeSpill, KB, ok } from './budget-fixtures.js';

/**
 * Every block of `content` counts against the budgets as it is serialized (docs/api.md, "Output budgets and spill"): text parts,
 * resource links and blocks already moved are cut like the text, and the spilled output holds what the cut left out.
 */

const link = (i: number): ContentBlock => ({
  type: 'resource_link',
  uri: `https://example.test/${i}`,
  name: `n${i}`,
  mime_type: null,
  description: 'D'.repeat(300),
});
const links = (n: number) => Array.from({ length: n }, (_, i) => link(i));

describe('blocks without an inline payload count against the per-call budget', () => {
  it('20,000 one-character text blocks: the descriptors go, the whole text is spilled and kept', async () => {
    const texts = Array.from({ length: 20_000 }, (_, i) => String(i % 10));
    const content: ContentBlock[] = texts.map(() => ({ type: 'text', bytes: 1 }));
    const payload = ok(texts.join('\n'), { content });
    expect(payloadBytes(payload)).toBeGreaterThan(500 * KB);
    const { spill, calls } = fakeSpill();
    const result = await applyCallBudget(payload, 50 * KB, spill);
    expect(result.bytes).toBeLessThanOrEqual(50 * KB);
    expect(payloadBytes(result.payload)).toBeLessThanOrEqual(50 * KB);
    expect(result.payload.content).toBeUndefined();
    expect(calls).toEqual([payload.text]);
    expect(result.payload.truncated!.original_bytes).toBe(Buffer.byteLength(payload.text));
    expect(result.payload.status).toBe('partial');
  });

  it('3,000 resource links: the first that fit stay, in order; the spilled output holds the text and every link', async () => {
    const payload = ok('the links', { content: links(3000) });
    const { spill, calls } = fakeSpill();
    const result = await applyCallBudget(payload, 50 * KB, spill);
    expect(payloadBytes(result.payload)).toBeLessThanOrEqual(50 * KB);
    const kept = result.payload.content!;
    expect(kept.length).toBeGreaterThan(10);
    expect(kept).toEqual(links(kept.length));
    const spilled = calls[0]!.split('\n');
    expect(spilled).toHaveLength(3001);
    expect(spilled[0]).toBe('the links');
    expect(JSON.parse(spilled[3000]!)).toEqual(link(2999));
    expect(result.payload.truncated!.original_bytes).toBe(Buffer.byteLength(calls[0]!));
    expect(result.payload.text).toMatch(/GET \/outputs\/\S+ for the whole output/);
  });

  it('an empty text with links over the budget still has a record of what was cut (original_bytes > 0)', async () => {
    const { spill } = fakeSpill();
    const result = await applyCallBudget(ok('', { content: links(500) }), 8 * KB, spill);
    expect(result.payload.truncated!.original_bytes).toBeGreaterThan(100 * KB);
    expect(payloadBytes(result.payload)).toBeLessThanOrEqual(8 * KB);
  });
});

describe('and against the batch budget', () => {
  it('two payloads of links within the per-call budget but over the batch budget are cut to fit together', async () => {
    const { spill, calls } = fakeSpill();
    const payloads = [ok('a', { content: links(400) }), ok('b', { content: links(400) })];
    expect(payloads.reduce((sum, p) => sum + payloadBytes(p), 0)).toBeGreaterThan(200 * KB);
    const batch = await applyBatchBudget(payloads, 200 * KB, spill);
    expect(batch.payloads.reduce((sum, p) => sum + payloadBytes(p), 0)).toBeLessThanOrEqual(200 * KB);
    expect(calls.map((c) => c.split('\n').length)).toEqual([401, 401]);
  });
});

describe(`one answer shows at most ${MAX_INLINE_IMAGES} images inline`, () => {
  it('the images past the first MAX_INLINE_IMAGES of the batch, in call order, are moved with a note', async () => {
    const image = png(2, 2).toString('base64');
    const withImages = (n: number): Payload =>
      ok('imgs', { content: Array.from({ length: n }, () => ({ type: 'image' as const, mime_type: 'image/png', data: image })) });
    const payloads = [withImages(15), withImages(10)];
    const stored: Buffer[] = [];
    const spill = async (content: string | Buffer): Promise<SpillOutcome> => {
      stored.push(Buffer.from(content));
      return { id: `o${stored.length}`, uri: 'memory://', bytes: stored.at(-1)!.length, sha256: 'x' };
    };
    const fitted = await fitBatch(payloads, payloads.map(payloadJson), 200 * KB, () => ({ spill, hints: [] }));
    const inline = fitted!.payloads.map((p) => p.content!.filter((b) => 'data' in b).length);
    expect(inline).toEqual([15, MAX_INLINE_IMAGES - 15]);
    expect(fitted!.payloads[1]!.content![5]).toMatchObject({ note: expect.stringContaining(`past the first ${MAX_INLINE_IMAGES} images`) });
    expect(stored).toHaveLength(5);
  });
});
