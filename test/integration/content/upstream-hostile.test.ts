import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INLINE_IMAGES } from '../../../src/tools/content.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';
import { claimed, png, undecodableImages } from '../../helpers/images.js';
import { fixtureServer } from '../../helpers/mcp.js';

/**
 * What an upstream MCP server sends is bounded and checked before a model sees it, through /execute and /mcp alike (docs/api.md,
 * "Images and other content", "Output budgets and spill"; docs/mcp.md): every block counts against the budgets, undecodable images are
 * refused, at most MAX_INLINE_IMAGES images are shown inline, and text-typed blobs pass the guardrails like text.
 */

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
const SECRET = FAKE_SECRETS[0]!;
const link = (i = 0) => ({ type: 'resource_link', uri: `https://example.test/${i}`, name: `n${i}`, description: 'D'.repeat(300) });
const repeat = (block: unknown, times: number, id = 'call_1') => ({ id, name: 'fx_repeat', arguments: { block, times } });
const blocks = (content: unknown[], id = 'call_1') => ({ id, name: 'fx_blocks', arguments: { content } });

let dir: string;
let t: TestApp;
let mcp: Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-upstream-hostile-'));
  t = await buildTestApp({
    builtins: false,
    config: {
      defaults: { breaker: { failure_threshold: 1000 } },
      mcp_servers: [fixtureServer(join(dir, 'events.jsonl'), {}, ['content'])],
    },
  });
  const url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
  mcp = new Client({ name: 'hostile-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(url));
});
afterAll(async () => {
  await mcp.close();
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('every block counts against the budgets', () => {
  it('3,000 resource links: the answer stays within the per-call budget, the spilled output holds every link', async () => {
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: [repeat(link(), 3000)] });
    const result = body.results[0];
    expect(result.status).toBe('partial');
    expect(Buffer.byteLength(JSON.stringify(body.messages))).toBeLessThan(52 * 1024);
    expect(result.truncated.original_bytes).toBeGreaterThan(3000 * 300);
    const whole = await t.app.inject({ url: result.truncated.url });
    expect(whole.body.split('\n').filter((line) => line.includes('"resource_link"'))).toHaveLength(3000);
    expect(result.text).toContain(`GET ${result.truncated.url} for the whole output`);
  });

  it('20,000 one-character text blocks: the text descriptors no longer escape the budget', async () => {
    const { body } = await execute(t.app, { format: 'openai', tool_calls: [repeat({ type: 'text', text: 'x' }, 20_000)] });
    // The tool message's content is the payload the budget counts: the whole text fits, the 20,000 descriptors are left out.
    expect(Buffer.byteLength(body.messages[0].content)).toBeLessThanOrEqual(50 * 1024);
    expect(body.results[0].content).toBeUndefined();
    expect(body.results[0].truncated.original_bytes).toBe(20_000 * 2 - 1);
  });

  it('the batch budget bounds links across calls', async () => {
    const calls = [repeat(link(), 150, 'call_a'), repeat(link(), 150, 'call_b'), repeat(link(), 150, 'call_c')];
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: calls });
    expect(Buffer.byteLength(JSON.stringify(body.messages))).toBeLessThan(205 * 1024);
    expect(body.results.every((r: { truncated: unknown }) => r.truncated !== null)).toBe(true);
  });

  it('/mcp passes a bounded list too: the first links that fit, then the note of where the whole output is', async () => {
    const result = await mcp.callTool({ name: 'fx_repeat', arguments: { block: link(), times: 3000 } });
    const content = result.content as Array<{ type: string; text?: string }>;
    expect(Buffer.byteLength(JSON.stringify(content))).toBeLessThan(52 * 1024);
    expect(content.filter((block) => block.type === 'resource_link').length).toBeLessThan(3000);
    expect(content.map((block) => block.text ?? '').join('\n')).toMatch(/GET \/outputs\/\S+ for the whole output/);
  });
});

describe('an image that does not decode is UPSTREAM_ERROR naming the block, in every format and on /mcp', () => {
  it.each(undecodableImages().map((c) => [c.name, c] as const))('%s', async (_name, bad) => {
    const content = [
      { type: 'text', text: 'look' },
      { type: 'image', mimeType: bad.mime, data: b64(bad.bytes) },
    ];
    for (const format of ['openai', 'responses', 'anthropic', 'gemini']) {
      const { body } = await execute(t.app, { format, tool_calls: [blocks(content)] });
      expect(body.results[0]).toMatchObject({
        status: 'error',
        error: { code: 'UPSTREAM_ERROR', details: { reason: 'bad_content', block: 1 } },
      });
      expect(body.results[0].error.message).toContain(bad.problem);
      expect(JSON.stringify(body.messages)).not.toContain(b64(bad.bytes));
    }
    const result = await mcp.callTool({ name: 'fx_blocks', arguments: { content } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ type: string }>).some((block) => block.type === 'image')).toBe(false);
  });
});

describe('images per answer and pixels per image', () => {
  it(`120 images: the first ${MAX_INLINE_IMAGES} reach the model, the rest are named with a url and a note`, async () => {
    const image = { type: 'image', mimeType: 'image/png', data: b64(png(2, 2)) };
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: [repeat(image, 120)] });
    const result = body.results[0];
    expect(result.status).toBe('success');
    expect(result.content.filter((block: object) => 'data' in block)).toHaveLength(MAX_INLINE_IMAGES);
    expect(result.content[MAX_INLINE_IMAGES].note).toContain(`past the first ${MAX_INLINE_IMAGES} images`);
    const parts = body.messages[0].content[0].content as Array<{ type: string }>;
    expect(parts.filter((part) => part.type === 'image')).toHaveLength(MAX_INLINE_IMAGES);
  });

  it(`${MAX_INLINE_IMAGES} images across two calls of one answer are all it shows`, async () => {
    const image = { type: 'image', mimeType: 'image/png', data: b64(png(2, 2)) };
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: [repeat(image, 15, 'call_a'), repeat(image, 15, 'call_b')] });
    const inline = body.results.map((r: { content: object[] }) => r.content.filter((block) => 'data' in block).length);
    expect(inline).toEqual([15, MAX_INLINE_IMAGES - 15]);
  });

  it('an image declaring 8000×8000 pixels (a decompression bomb) is IMAGE_TOO_LARGE, kept in the spill store', async () => {
    const { body } = await execute(t.app, [blocks([{ type: 'image', mimeType: 'image/png', data: b64(claimed(8000, 8000)) }])]);
    expect(body.results[0]).toMatchObject({ status: 'error', error: { code: 'IMAGE_TOO_LARGE', details: { block: 0 } } });
    expect(body.results[0].content[0]).toMatchObject({ url: expect.stringMatching(/^\/outputs\//) });
  });
});

describe('text-typed blobs are text: the guardrails scan them', () => {
  it.each(['text/plain', 'application/JSON; charset=utf-8', 'image/svg+xml'])('a %s blob holding a credential', async (mimeType) => {
    const resource = { type: 'resource', resource: { uri: 'file:///env', mimeType, blob: b64(`TOKEN=${SECRET.text}\n`) } };
    const { body } = await execute(t.app, [blocks([resource])]);
    expect(JSON.stringify(body)).not.toContain(SECRET.secret);
    expect(body.results[0].content[0]).toMatchObject({ type: 'resource', text: expect.stringContaining(`[REDACTED:${SECRET.kind}]`) });
    const result = await mcp.callTool({ name: 'fx_blocks', arguments: { content: [resource] } });
    expect(JSON.stringify(result)).not.toContain(SECRET.secret);
  });
});
