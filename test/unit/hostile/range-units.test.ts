import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool } from '../../helpers/tools.js';

/**
 * Hostile-input sweep of `Range` on GET /outputs/{id}. RFC 9110 14.2: a
 * server MUST ignore a Range header with a range unit it does not
 * understand, and range units are case-insensitive (14.1). `items=0-5` was a
 * 416 and `Bytes=0-0` a 416 "malformed". Multi-range (`bytes=0-0,5-9`) is
 * served whole, as before; a suffix of 0 (`bytes=-0`) and a start past the
 * end (even a 21-digit one) stay 416.
 */
describe('Range header variants on /outputs', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await buildTestApp({ tools: [bigOutputTool('Big')] });
    const { body } = await execute(t.app, [{ id: 'b', name: 'Big', arguments: { size: 60_000 } }]);
    url = body.results[0].truncated.url;
  });
  afterAll(() => t.close());

  const get = (range: string) => t.app.inject({ method: 'GET', url, headers: { range } });

  it.each(['items=0-5', 'lines=1-2', 'none'])('an unknown unit %j is ignored: the whole output, 200', async (range) => {
    const res = await get(range);
    expect(res.statusCode).toBe(200);
    expect(res.body).toHaveLength(60_000);
  });

  it('the unit is case-insensitive', async () => {
    const res = await get('Bytes=0-0');
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('bytes 0-0/60000');
  });

  it.each([
    ['bytes=0-0,5-9', 200, 60_000],
    ['bytes=0-999999999999999999999', 206, 60_000],
    ['bytes=-999999999999999999999', 206, 60_000],
  ])('%s is %i with %i bytes', async (range, status, length) => {
    const res = await get(range);
    expect(res.statusCode).toBe(status);
    expect(res.body).toHaveLength(length);
  });

  it.each(['bytes=-0', 'bytes=999999999999999999999-', 'bytes=60000-', 'bytes=-', 'bytes=x-y'])('%s is a structured 416', async (range) => {
    const res = await get(range);
    expect(res.statusCode).toBe(416);
    expect(res.json()).toMatchObject({ error: { code: 'RANGE_NOT_SATISFIABLE' } });
    expect(res.headers['content-range']).toBe('bytes */60000');
  });
});
