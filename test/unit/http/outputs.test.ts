import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool } from '../../helpers/tools.js';
import { SPILL_ERROR } from '../../../src/pipeline/budget.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createFsSpillStore } from '../../../src/spill/fs.js';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Budgets cut payloads, the whole output is spilled and served back. */
describe('output budgets and GET /outputs/{id}', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ tools: [bigOutputTool('Big')] });
  });
  afterAll(() => t.close());

  it('a payload over the per-call budget is cut to it and the full output round-trips', async () => {
    const { body } = await execute(t.app, [{ id: 'b', name: 'Big', arguments: { size: 120_000, char: 'é' } }]);
    const result = body.results[0];
    expect(result.status).toBe('partial');
    expect(Buffer.byteLength(body.messages[0].content)).toBeLessThanOrEqual(51_200);
    const full = 'é'.repeat(120_000);
    expect(result.truncated).toMatchObject({
      original_bytes: Buffer.byteLength(full),
      sha256: sha256(full),
      url: expect.stringMatching(/^\/outputs\//),
    });
    expect(result.truncated.uri).toMatch(/^file:\/\//);
    const res = await t.app.inject({ method: 'GET', url: result.truncated.url });
    expect(res.statusCode).toBe(200);
    expect(sha256(res.rawPayload)).toBe(result.truncated.sha256);
    expect(res.headers['accept-ranges']).toBe('bytes');
  });

  it('Range requests return exactly the bytes asked for', async () => {
    const { body } = await execute(t.app, [{ id: 'b', name: 'Big', arguments: { size: 60_000 } }]);
    const url = body.results[0].truncated.url;
    const part = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=10-19' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 10-19/60000');
    expect(part.body).toBe('x'.repeat(10));
    const suffix = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=-5' } });
    expect(suffix.body).toHaveLength(5);
    const outside = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=70000-' } });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */60000');
  });

  it('a batch over its budget cuts the largest payloads first and keeps small ones whole', async () => {
    const calls = [
      { id: 'small', name: 'Big', arguments: { size: 1_000 } },
      ...Array.from({ length: 5 }, (_, i) => ({ id: `big${i}`, name: 'Big', arguments: { size: 49_000 } })),
    ];
    const { body } = await execute(t.app, calls);
    const total = body.messages.reduce((n: number, m: { content: string }) => n + Buffer.byteLength(m.content), 0);
    expect(total).toBeLessThanOrEqual(204_800);
    expect(body.results[0]).toMatchObject({ status: 'success', truncated: null });
    for (const r of body.results.slice(1)) {
      expect(r.truncated).not.toBeNull();
      const full = await t.app.inject({ method: 'GET', url: r.truncated.url });
      expect(full.body).toBe('x'.repeat(49_000));
    }
  });

  it('an unknown or malformed id is 404', async () => {
    for (const id of ['nope', '..%2F..%2Fetc%2Fpasswd', 'a'.repeat(100)]) {
      const res = await t.app.inject({ method: 'GET', url: `/outputs/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
  });
});

describe('when the spill store fails (the budget still holds)', () => {
  it('cuts the payload to the budget with uri and url null and spill_error, warns once per outage, recovers by itself', async () => {
    // A real file store whose directory cannot be made: its parent is a file, until the test removes it.
    const root = await mkdtemp(join(tmpdir(), 'toolgate-failing-spill-'));
    await writeFile(join(root, 'blocker'), '');
    const spill = createFsSpillStore({ dir: join(root, 'blocker', 'spill'), ttlMs: 60_000, clock: new ManualClock() });
    const { slowTool } = await import('../../helpers/tools.js');
    const big = { ...slowTool('BigWrite', { safe: false, ms: 1 }), run: async () => ({ text: 'y\n'.repeat(40_000) }) };
    const t = await buildTestApp({ tools: [bigOutputTool('Big'), big], spill });
    try {
      const { status, body } = await execute(t.app, [
        { id: 'b', name: 'Big', arguments: { size: 60_000 } },
        { id: 'w', name: 'BigWrite', arguments: {} },
      ]);
      expect(status).toBe(200);
      for (const [i, whole] of ['x'.repeat(60_000), 'y\n'.repeat(40_000)].entries()) {
        const result = body.results[i];
        expect(result.status).toBe('partial');
        expect(result.truncated).toEqual({
          original_bytes: whole.length,
          uri: null,
          url: null,
          sha256: sha256(whole),
          spill_error: SPILL_ERROR,
        });
        expect(Buffer.byteLength(body.messages[i].content)).toBeLessThanOrEqual(51_200);
        expect(JSON.parse(body.messages[i].content).truncated).toEqual({
          original_bytes: whole.length,
          url: null,
          sha256: sha256(whole),
          spill_error: SPILL_ERROR,
        });
        expect(result.text).toMatch(/the whole output was not kept, the spill store failed/);
      }
      const again = await execute(t.app, [
        { id: 'w', name: 'BigWrite', arguments: {} },
        { id: 'b2', name: 'Big', arguments: { size: 60_000 } },
      ]);
      expect(again.body.results[0]).toMatchObject({ status: 'partial', replayed: true, truncated: { url: null } });
      expect(again.body.results[1].truncated).toMatchObject({ url: null, spill_error: SPILL_ERROR });
      expect(t.logs.filter((l) => String(l.msg).startsWith('spill store failing')).length).toBe(1);
      expect((await t.app.metrics.spillFailures.get()).values[0]?.value).toBe(3);
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'not_ready', failed: ['spill_store'] });

      await rm(join(root, 'blocker'));
      const recovered = await execute(t.app, [{ id: 'b3', name: 'Big', arguments: { size: 60_000 } }]);
      const url = recovered.body.results[0].truncated.url;
      expect(url).toMatch(/^\/outputs\//);
      expect((await t.app.inject({ method: 'GET', url })).body).toBe('x'.repeat(60_000));
      expect(t.logs.filter((l) => l.msg === 'spill store answering again').length).toBe(1);
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await t.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
