import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { claimed, GIF, JPEG, png, undecodableImages, WEBP, wav } from '../../helpers/images.js';
import { fixtureServer } from '../../helpers/mcp.js';

/**
 * Images and other content (docs/api.md, "Images and other content"): results carry `content`
 * blocks from upstream MCP tools (our fixture server, on real files) and from Read of image
 * files told by their bytes; the budgets count an image by its bytes and move one that does not
 * fit to the spill store with a note; limits.image_bytes bounds one image.
 */

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const call = (name: string, args: Record<string, unknown> = {}) => ({
  id: `call_${Math.random().toString(36).slice(2)}`,
  name,
  arguments: args,
});

let dir: string;
let small: TestApp;
const SCREENSHOT = png(1000, 800, true);
const PIXELS = png(64, 48);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-content-'));
  await writeFile(join(dir, 'screen.png'), SCREENSHOT);
  await writeFile(join(dir, 'voice.wav'), wav(2000));
  small = await buildTestApp({ config: { mcp_servers: [fixtureServer(join(dir, 'events.jsonl'), {}, ['content'])] } });
  const ws = small.workspace;
  await writeFile(join(ws, 'chart.png'), PIXELS);
  await writeFile(join(ws, 'photo.jpg'), JPEG);
  await writeFile(join(ws, 'anim.gif'), GIF);
  await writeFile(join(ws, 'pic.webp'), WEBP);
  // Named for what they are not: the bytes decide.
  await writeFile(join(ws, 'really-a-png.txt'), PIXELS);
  await writeFile(join(ws, 'not-an-image.png'), 'just text\n');
  await writeFile(join(ws, 'cut-short.png'), PIXELS.subarray(0, PIXELS.length - 20));
});
afterAll(async () => {
  await small.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Read of an image file', () => {
  it.each([
    ['chart.png', 'image/png', PIXELS],
    ['photo.jpg', 'image/jpeg', JPEG],
    ['anim.gif', 'image/gif', GIF],
    ['pic.webp', 'image/webp', WEBP],
    ['really-a-png.txt', 'image/png', PIXELS],
  ])('%s is an %s block with the whole file, told by its bytes', async (path, mime, bytes) => {
    const { body } = await execute(small.app, [call('Read', { path })]);
    const result = body.results[0];
    expect(result).toMatchObject({ status: 'success', text: `(an ${mime} image of ${bytes.length} bytes; it is in content)` });
    expect(result.content).toEqual([{ type: 'image', mime_type: mime, data: bytes.toString('base64') }]);
    expect(result.data).toMatchObject({ file_size_bytes: bytes.length });
    // The model's payload names the image, never its base64.
    expect(body.messages[0].content).not.toContain(bytes.toString('base64'));
    expect(JSON.parse(body.messages[0].content).content).toEqual([{ type: 'image', mime_type: mime, bytes: bytes.length }]);
  });

  it('a file named .png that is text is read as text; a PNG cut short is refused as binary, as before', async () => {
    const { body } = await execute(small.app, [call('Read', { path: 'not-an-image.png' }), call('Read', { path: 'cut-short.png' })]);
    expect(body.results[0]).toMatchObject({ status: 'success', text: '     1\tjust text' });
    expect(body.results[0].content).toBeUndefined();
    expect(body.results[1]).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS', message: expect.stringContaining('binary') } });
  });

  it('Read holds a file to the same checks as an upstream block: a polyglot is binary, a decompression bomb IMAGE_TOO_LARGE', async () => {
    const polyglot = undecodableImages()[0]!.bytes;
    await writeFile(join(small.workspace, 'polyglot.png'), polyglot);
    await writeFile(join(small.workspace, 'bomb.png'), claimed(8000, 8000));
    const { body } = await execute(small.app, [call('Read', { path: 'polyglot.png' }), call('Read', { path: 'bomb.png' })]);
    expect(body.results[0]).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS', message: expect.stringContaining('binary') } });
    expect(body.results[1]).toMatchObject({ status: 'error', error: { code: 'IMAGE_TOO_LARGE', details: { block: 0 } } });
    expect(body.results[1].content[0]).toMatchObject({ type: 'image', url: expect.stringMatching(/^\/outputs\//) });
  });
});

describe('content of upstream MCP tools', () => {
  it('images, audio, resources and links come back as blocks in the order given; text blocks are joined into text and keep their place', async () => {
    const result = (await execute(small.app, [call('fx_mixed')])).body.results[0];
    expect(result).toMatchObject({ status: 'success', text: 'first\nlast' });
    expect(result.content.map((b: { type: string }) => b.type)).toEqual(['text', 'image', 'resource', 'resource', 'resource_link', 'text']);
    expect(result.content[0]).toEqual({ type: 'text', bytes: 5 });
    expect(result.content[2]).toEqual({ type: 'resource', uri: 'file:///notes.txt', mime_type: 'text/plain', text: 'a note' });
    expect(result.content[3]).toMatchObject({
      type: 'resource',
      uri: 'file:///pixel.png',
      mime_type: 'image/png',
      data: expect.any(String),
    });
    expect(result.content[4]).toEqual({ type: 'resource_link', uri: 'file:///big.log', name: 'big.log', mime_type: 'text/plain' });
    expect(result.content[5]).toEqual({ type: 'text', bytes: 4 });
  });

  it('one text block first, then the other blocks, needs no text part: content holds the other blocks only', async () => {
    const result = (await execute(small.app, [call('fx_media', { path: join(dir, 'voice.wav'), type: 'audio', mime: 'audio/wav' })])).body
      .results[0];
    expect(result.content.map((b: { type: string }) => b.type)).toEqual(['audio']);
  });

  it('audio from a real file, within budget, is inline', async () => {
    const audio = wav(200);
    await writeFile(join(dir, 'short.wav'), audio);
    const result = (await execute(small.app, [call('fx_media', { path: join(dir, 'short.wav'), type: 'audio', mime: 'audio/wav' })])).body
      .results[0];
    expect(result.content).toEqual([{ type: 'audio', mime_type: 'audio/wav', data: audio.toString('base64') }]);
  });

  it('a block of a type the gateway does not know is kept in data and named in text', async () => {
    const result = (await execute(small.app, [call('fx_odd_blocks')])).body.results[0];
    expect(result.status).toBe('success');
    expect(result.data.unknown_content).toEqual([{ type: 'hologram', depth: 3 }]);
    expect(result.text).toBe(
      'before\n[content[1] is a block of type "hologram" that the gateway does not pass on; it is kept in data.unknown_content]',
    );
  });

  it('base64 that does not decode is an error result naming the block; a data URL is decoded, its media type kept', async () => {
    const { body } = await execute(small.app, [call('fx_bad_base64'), call('fx_data_url')]);
    expect(body.results[0]).toMatchObject({
      status: 'error',
      error: { code: 'UPSTREAM_ERROR', retryable: false, details: { reason: 'bad_content', block: 1 } },
    });
    expect(body.results[0].error.message).toContain('content[1]');
    expect(body.results[1].content).toEqual([{ type: 'image', mime_type: 'image/png', data: expect.stringMatching(/^iVBOR/) }]);
  });
});

describe('budgets and limits.image_bytes', () => {
  it('a screenshot over the per-call budget is spilled, named by url with a note the model reads; the text stays', async () => {
    const { body } = await execute(small.app, [call('fx_media', { path: join(dir, 'screen.png'), type: 'image', mime: 'image/png' })]);
    const result = body.results[0];
    expect(result).toMatchObject({ status: 'partial', text: 'the image you asked for', truncated: null });
    const block = result.content[0];
    expect(block).toEqual({
      type: 'image',
      mime_type: 'image/png',
      bytes: SCREENSHOT.length,
      sha256: sha(SCREENSHOT),
      url: expect.stringMatching(/^\/outputs\//),
      note: `over the output budget: GET ${block.url} for it`,
    });
    expect(JSON.parse(body.messages[0].content).content[0].note).toBe(block.note);
    const output = await small.app.inject({ url: block.url });
    expect(output.rawPayload.equals(SCREENSHOT)).toBe(true);
  });

  it('when the spill store fails, the moved block has no url and its note says it was not kept; the budget holds all the same', async () => {
    const notDir = join(dir, 'spill-is-a-file');
    await writeFile(notDir, '');
    const t = await buildTestApp({
      spillDir: notDir,
      config: { mcp_servers: [fixtureServer(join(dir, 'nospill.jsonl'), {}, ['content'])] },
    });
    try {
      const { body } = await execute(t.app, [call('fx_media', { path: join(dir, 'screen.png'), type: 'image', mime: 'image/png' })]);
      expect(body.results[0].status).toBe('partial');
      expect(body.results[0].content[0]).toEqual({
        type: 'image',
        mime_type: 'image/png',
        bytes: SCREENSHOT.length,
        sha256: sha(SCREENSHOT),
        url: null,
        note: 'over the output budget; it was not kept: the spill store is unavailable',
        spill_error: 'The spill store is unavailable.',
      });
      expect(Buffer.byteLength(body.messages[0].content)).toBeLessThan(51_200);
    } finally {
      await t.close();
    }
  });

  it('an image over limits.image_bytes is IMAGE_TOO_LARGE, and still served from the spill store (Read and upstream alike)', async () => {
    const t = await buildTestApp({
      config: { limits: { image_bytes: 4096 }, mcp_servers: [fixtureServer(join(dir, 'limit.jsonl'), {}, ['content'])] },
    });
    try {
      const noisy = png(64, 48, true);
      await writeFile(join(t.workspace, 'chart.png'), noisy);
      const { body } = await execute(t.app, [
        call('Read', { path: 'chart.png' }),
        call('fx_media', { path: join(dir, 'screen.png'), type: 'image', mime: 'image/png' }),
      ]);
      for (const [result, bytes] of [
        [body.results[0], noisy],
        [body.results[1], SCREENSHOT],
      ] as const) {
        expect(result).toMatchObject({
          status: 'error',
          error: { code: 'IMAGE_TOO_LARGE', retryable: false, details: { block: 0, bytes: bytes.length, limit: 4096 } },
        });
        expect(result.content[0]).toMatchObject({
          type: 'image',
          url: result.error.details.url,
          note: expect.stringContaining('over limits.image_bytes (4096 bytes)'),
        });
        expect((await t.app.inject({ url: result.error.details.url })).rawPayload.equals(bytes)).toBe(true);
      }
    } finally {
      await t.close();
    }
  });

  it('with budgets raised for screenshots, a multi-MB screenshot stays inline', async () => {
    const big = await buildTestApp({
      config: {
        limits: { call_budget_bytes: 8 << 20, batch_budget_bytes: 16 << 20 },
        mcp_servers: [fixtureServer(join(dir, 'big.jsonl'), {}, ['content'])],
      },
    });
    try {
      expect(SCREENSHOT.length).toBeGreaterThan(2 << 20);
      const result = (await execute(big.app, [call('fx_media', { path: join(dir, 'screen.png'), type: 'image', mime: 'image/png' })])).body
        .results[0];
      expect(result.status).toBe('success');
      expect(Buffer.from(result.content[0].data, 'base64').equals(SCREENSHOT)).toBe(true);
    } finally {
      await big.close();
    }
  });

  it('the batch budget counts images by bytes and moves the largest first; the text is cut only after', async () => {
    const t = await buildTestApp({ config: { limits: { call_budget_bytes: 20_000, batch_budget_bytes: 30_000 } } });
    try {
      const a = png(100, 60, true);
      const b = png(80, 60, true);
      await writeFile(join(t.workspace, 'a.png'), a);
      await writeFile(join(t.workspace, 'b.png'), b);
      await writeFile(join(t.workspace, 'c.png'), png(40, 30, true));
      expect(a.length + b.length).toBeGreaterThan(30_000);
      expect(b.length).toBeLessThan(20_000);
      const { body } = await execute(t.app, [
        call('Read', { path: 'a.png' }),
        call('Read', { path: 'b.png' }),
        call('Read', { path: 'c.png' }),
      ]);
      const [ra, rb, rc] = body.results;
      expect(ra.content[0]).toMatchObject({ url: expect.any(String), note: expect.stringContaining('over the output budget') });
      expect(ra.status).toBe('partial');
      expect(rb.content[0].data).toBe(b.toString('base64'));
      expect(rc.status).toBe('success');
    } finally {
      await t.close();
    }
  });
});

describe('guardrails and content', () => {
  it("an embedded resource's text is scanned as text is; an image's base64 passes as it is", async () => {
    const secret = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const t = await buildTestApp({
      builtins: false,
      tools: [
        {
          name: 'leaky_resource',
          description: 'An embedded resource holding a token, and an image.',
          parameters: { type: 'object', properties: {} },
          concurrencySafe: true,
          run: async () => ({
            text: 'see the resource',
            content: [
              { type: 'resource', uri: 'file:///.env', mime_type: 'text/plain', text: `GITHUB_TOKEN=${secret}\n` },
              { type: 'image', mime_type: 'image/png', data: PIXELS.toString('base64') },
            ],
          }),
        },
      ],
    });
    try {
      const { body } = await execute(t.app, [call('leaky_resource')]);
      expect(JSON.stringify(body)).not.toContain(secret);
      const result = body.results[0];
      expect(result.content[0].text).toContain('[REDACTED:');
      expect(result.content[1].data).toBe(PIXELS.toString('base64'));
      expect(result.data.redactions).toBeDefined();
    } finally {
      await t.close();
    }
  });
});
