import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { logStderr } from '../../../../src/tools/mcp/stderr.js';

function capture() {
  const lines: Array<{ level: string; entry: Record<string, unknown> }> = [];
  const log = {
    info: (entry: Record<string, unknown>) => lines.push({ level: 'info', entry }),
    warn: (entry: Record<string, unknown>) => lines.push({ level: 'warn', entry }),
  } as unknown as Logger;
  return { lines, log };
}

const records = { redact: (text: string) => ({ text: text.replaceAll('tok-secret', '[REDACTED]') }) };

async function feed(chunks: string[]) {
  const { lines, log } = capture();
  const stream = new PassThrough();
  logStderr(stream, log, records as never);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await once(stream, 'end');
  return lines;
}

describe("logStderr: a stdio server's stderr in the log, bounded and redacted", () => {
  it('logs a line per entry, across chunks, blank lines left out, a CR ending dropped', async () => {
    const lines = await feed(['first li', 'ne\r\n\n  \nsecond\n', 'last']);
    expect(lines.map((l) => l.entry.stderr)).toEqual(['first line', 'second', 'last']);
  });

  it('redacts a credential before the line is logged', async () => {
    const lines = await feed(['token=tok-secret\n']);
    expect(lines[0]!.entry.stderr).toBe('token=[REDACTED]');
  });

  it('cuts a long line, and past 50 lines in a window counts the rest instead of logging them', async () => {
    const lines = await feed([`${'x'.repeat(3_000)}\n`, ...Array.from({ length: 60 }, (_, i) => `line ${i}\n`)]);
    expect(String(lines[0]!.entry.stderr)).toHaveLength(2_001);
    expect(lines.filter((l) => l.level === 'info')).toHaveLength(50);
    expect(lines.at(-1)).toEqual({ level: 'warn', entry: { dropped_lines: 11 } });
  });
});
