import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { claimed, JPEG, png, wav } from '../../helpers/images.js';
import { fixtureServer } from '../../helpers/mcp.js';

/**
 * An upstream's image and audio blocks are held to the type they declare before any model sees them (docs/api.md, "Images and other
 * content"): bytes of another kind, an image cut short or one wider or taller than a provider takes is UPSTREAM_ERROR naming the block;
 * and an image counts against limits.image_bytes, not the per-call text budget, so an ordinary screenshot reaches the model by default.
 */

const PIXEL = png(4, 3);
/** About 96 KB: over the 50 KB per-call budget, within the 200 KB batch budget. */
const SCREENSHOT = png(180, 178, true);
const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
const image = (data: Buffer | string, mimeType = 'image/png') => ({ type: 'image', mimeType, data: b64(data) });
const text = (value: string) => ({ type: 'text', text: value });
const blocks = (content: unknown[], id = 'call_1') => ({ id, name: 'fx_blocks', arguments: { content } });
/** fx_media: a text block, then the file at `path` as an image (arguments are too small to carry a screenshot). */
const media = (path: string, id = 'call_1') => ({ id, name: 'fx_media', arguments: { path, type: 'image', mime: 'image/png' } });

let dir: string;
let t: TestApp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-upstream-media-'));
  await writeFile(join(dir, 'screen.png'), SCREENSHOT);
  await writeFile(join(dir, 'larger.png'), png(200, 178, true));
  t = await buildTestApp({
    builtins: false,
    // Malformed content is the upstream's malfunction, counted by the breaker: every case here runs on its own.
    config: {
      defaults: { breaker: { failure_threshold: 1000 } },
      mcp_servers: [fixtureServer(join(dir, 'events.jsonl'), {}, ['content'])],
    },
  });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an image or audio block whose bytes are not what it declares is UPSTREAM_ERROR naming the block', () => {
  it.each([
    ['text declared image/png (a text file named text.png)', [text('here'), image('just some text\n')], 'bytes are text, not image/png'],
    ['a PNG declared image/jpeg', [image(PIXEL, 'image/jpeg')], 'bytes are image/png, not image/jpeg'],
    [
      'a PNG cut short',
      [text('a'), text('b'), image(PIXEL.subarray(0, PIXEL.length - 12))],
      'bytes are not a whole image/png: PNG has no IEND chunk',
    ],
    ['a PNG whose header claims 100000 x 10 pixels', [image(claimed(100_000, 10))], 'image is 100000×10 pixels'],
    ['a PNG whose header claims 0 x 0 pixels', [image(claimed(0, 0))], 'image is 0×0 pixels'],
    ['an audio block holding a PNG', [{ type: 'audio', mimeType: 'audio/wav', data: b64(PIXEL) }], 'bytes are image/png, not audio/wav'],
    [
      'an audio block of an unknown type holding a JPEG',
      [{ type: 'audio', mimeType: 'audio/amr', data: b64(JPEG) }],
      'bytes are image/jpeg',
    ],
    ['an image block declaring a type that is no image type', [image(PIXEL, 'application/octet-stream')], 'is not an image type'],
    [
      'an SVG image (markup, which no provider takes as an image)',
      [image('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/svg+xml')],
      'bytes are text, not an image a provider takes',
    ],
    [
      'an audio block of a type the gateway cannot tell holding text',
      [{ type: 'audio', mimeType: 'audio/amr', data: b64('just text') }],
      'bytes are text',
    ],
  ])('%s', async (_what, content, why) => {
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: [blocks(content)] });
    const index = content.length - 1;
    const declared = (content[index] as { mimeType: string }).mimeType;
    const result = body.results[0];
    expect(result).toMatchObject({
      status: 'error',
      error: { code: 'UPSTREAM_ERROR', retryable: false, details: { server: 'fx', reason: 'bad_content', block: index, declared } },
    });
    expect(result.error.message).toContain(`content[${index}]`);
    expect(result.error.message).toContain(why);
    expect(result.content).toBeUndefined();
    // Nothing of the block reaches the model: the tool_result is the error payload alone.
    expect(body.messages[0].content[0].content).toEqual(expect.any(String));
  });

  it('well-formed PNG, JPEG and WAV pass, each with its declared type normalized (lower case, no parameters, the canonical name)', async () => {
    const content = [
      image(PIXEL, 'image/PNG; x=y'),
      image(JPEG, 'image/jpg'),
      { type: 'audio', mimeType: 'audio/x-wav', data: b64(wav(5)) },
    ];
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: [blocks(content)] });
    expect(body.results[0].status).toBe('success');
    expect(body.results[0].content.map((b: { mime_type: string }) => b.mime_type)).toEqual(['image/png', 'image/jpeg', 'audio/wav']);
    // The normalized type is what a provider gets: both images reach the model.
    const images = body.messages[0].content[0].content.filter((part: { type: string }) => part.type === 'image');
    expect(images.map((part: { source: { media_type: string } }) => part.source.media_type)).toEqual(['image/png', 'image/jpeg']);
  });
});

describe('images and the budgets', () => {
  it('a 96 KB screenshot, over the 50 KB per-call budget, reaches the model inline with the default budgets, in every format', async () => {
    expect(SCREENSHOT.length).toBeGreaterThan(90 * 1024);
    expect(SCREENSHOT.length).toBeLessThan(100 * 1024);
    const data = b64(SCREENSHOT);
    for (const format of ['openai', 'responses', 'anthropic', 'gemini']) {
      const { body } = await execute(t.app, { format, tool_calls: [media(join(dir, 'screen.png'))] });
      expect(body.results[0]).toMatchObject({ status: 'success', text: 'the image you asked for', truncated: null });
      expect(body.results[0].content).toEqual([{ type: 'image', mime_type: 'image/png', data }]);
      expect(JSON.stringify(body.messages)).toContain(data);
    }
  });

  it('the batch budget still bounds the whole answer: three screenshots over 200 KB, the largest moved first', async () => {
    const { body } = await execute(t.app, [
      media(join(dir, 'larger.png'), 'call_a'),
      media(join(dir, 'screen.png'), 'call_b'),
      media(join(dir, 'screen.png'), 'call_c'),
    ]);
    const [a, b, c] = body.results;
    expect(a).toMatchObject({ status: 'partial', content: [{ type: 'image', url: expect.stringMatching(/^\/outputs\//) }] });
    expect(a.content[0].note).toContain('over the output budget');
    expect(b.content[0].data).toBe(b64(SCREENSHOT));
    expect(c.content[0].data).toBe(b64(SCREENSHOT));
  });

  it('an image over limits.image_bytes is still IMAGE_TOO_LARGE, whatever the budgets', async () => {
    const small = await buildTestApp({
      builtins: false,
      config: { limits: { image_bytes: 50_000 }, mcp_servers: [fixtureServer(join(dir, 'limit.jsonl'), {}, ['content'])] },
    });
    try {
      const { body } = await execute(small.app, [media(join(dir, 'screen.png'))]);
      expect(body.results[0]).toMatchObject({ status: 'error', error: { code: 'IMAGE_TOO_LARGE', details: { block: 0, limit: 50_000 } } });
    } finally {
      await small.close();
    }
  });
});
