import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** scripts/console-screenshot.ts, run as `npm run docs:console` runs it, to a temp file: the picture docs/console.md shows. */
const run = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-shot-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('the console screenshot script', () => {
  it('shows a pending Edit, a recent decision and an open breaker, in a 900 px wide full-page PNG', async () => {
    const out = join(dir, 'console.png');
    // Each of the script's steps has a 15 s bound of its own and names itself when it fails.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/console-screenshot.ts', out], {
      cwd: ROOT,
      timeout: 150_000,
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { bytes: number; seen: Record<string, boolean> };
    expect(report.seen).toEqual({ pending: true, breaker: true, decision: true });
    const png = await readFile(out);
    expect(png.length).toBe(report.bytes);
    const { width, height } = pngSize(png);
    expect(width).toBe(900);
    expect(height).toBeGreaterThanOrEqual(900);
  }, 180_000);

  it('docs/console.png is such a picture', async () => {
    expect(pngSize(await readFile(new URL('docs/console.png', ROOT))).width).toBe(900);
  });
});
