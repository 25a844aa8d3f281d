import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { coalescingDestination } from '../../../src/observability/log-destination.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function logFile(): { path: string; fd: number } {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-log-'));
  dirs.push(dir);
  const path = join(dir, 'out.log');
  return { path, fd: openSync(path, 'w') };
}

describe('coalescingDestination', () => {
  it('hands the lines of one event-loop turn over together, in order, after the turn', async () => {
    const { path, fd } = logFile();
    const destination = coalescingDestination(fd);
    const lines = Array.from({ length: 200 }, (_, i) => `{"n":${i},"msg":"é ${'x'.repeat(i)}"}\n`);
    for (const line of lines) destination.write(line);
    expect(readFileSync(path, 'utf8')).toBe('');
    await new Promise((resolve) => setImmediate(resolve));
    destination.write('{"n":"next turn"}\n');
    await vi.waitFor(() => expect(readFileSync(path, 'utf8')).toBe(lines.join('') + '{"n":"next turn"}\n'));
    closeSync(fd);
  });

  it('keeps every line, in order, for a reader with no room, without blocking the event loop', async () => {
    // A child that reads nothing for a while: its stdin pipe (non-blocking on our side) fills up.
    const reader = spawn(process.execPath, ['-e', 'setTimeout(() => process.stdin.pipe(process.stdout), 300)'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const received: Buffer[] = [];
    reader.stdout.on('data', (chunk: Buffer) => received.push(chunk));
    const destination = coalescingDestination(fd);
    // 2 MB: more than the socket buffer holds.
    const lines = Array.from({ length: 10_000 }, (_, i) => `{"n":${i},"pad":"${'p'.repeat(200)}"}\n`);
    let turns = 0;
    for (let i = 0; i < lines.length; i += 250) {
      for (const line of lines.slice(i, i + 250)) destination.write(line);
      const before = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      expect(performance.now() - before).toBeLessThan(100);
      turns++;
    }
    expect(turns).toBe(40);
    await vi.waitFor(() => expect(Buffer.concat(received).length).toBe(Buffer.byteLength(lines.join(''))), { timeout: 5000 });
    expect(Buffer.concat(received).toString()).toBe(lines.join(''));
    reader.stdin.end();
    await once(reader, 'exit');
  });

  it('holds at most its bound for a reader that does not keep up, then says how many lines it dropped', async () => {
    const reader = spawn(process.execPath, ['-e', 'setTimeout(() => process.stdin.pipe(process.stdout), 300)'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const received: Buffer[] = [];
    reader.stdout.on('data', (chunk: Buffer) => received.push(chunk));
    const destination = coalescingDestination(fd, 64 * 1024);
    const line = (i: number) => `{"n":${i},"pad":"${'p'.repeat(1000)}"}\n`;
    for (let turn = 0; turn < 20; turn++) {
      for (let i = 0; i < 50; i++) destination.write(line(turn * 50 + i));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await vi.waitFor(() => expect(Buffer.concat(received).toString()).toMatch(/log lines were dropped/), { timeout: 5000 });
    const got = Buffer.concat(received)
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { n?: number; msg?: string });
    const kept = got.filter((l) => l.n !== undefined).map((l) => l.n!);
    const dropped = Number(/^(\d+) log lines/.exec(got.at(-1)!.msg!)![1]);
    expect(kept.length + dropped).toBe(1000);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(dropped).toBeGreaterThan(0);
    reader.stdin.end();
    await once(reader, 'exit');
  });

  it('writes what is pending on flushSync', () => {
    const { path, fd } = logFile();
    const destination = coalescingDestination(fd);
    destination.write('a\n');
    destination.write('b\n');
    destination.flushSync();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
    closeSync(fd);
  });

  it('loses no line when the process exits in the turn that logged it', () => {
    const { path, fd } = logFile();
    closeSync(fd);
    const script = [
      `import { openSync } from 'node:fs';`,
      `import { pino } from 'pino';`,
      `import { coalescingDestination } from ${JSON.stringify(new URL('../../../src/observability/log-destination.ts', import.meta.url).pathname)};`,
      `const logger = pino({ base: null, timestamp: false }, coalescingDestination(openSync(${JSON.stringify(path)}, 'w')));`,
      `for (let i = 0; i < 1000; i++) logger.info({ i }, 'line');`,
      `process.exit(0);`,
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const written = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { i: number }).i);
    expect(written).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
