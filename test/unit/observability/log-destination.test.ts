import { spawnSync } from 'node:child_process';
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
    const written = readFileSync(path, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { i: number }).i);
    expect(written).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
