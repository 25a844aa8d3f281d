import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { SecretScanner } from '../../guardrails/index.js';

/** Longest stderr line logged whole; the rest of it is dropped. */
const LINE_CHARS = 2_000;
/** Lines logged per window; past it they are counted, and the count logged when the window ends. */
const LINES_PER_WINDOW = 50;
const WINDOW_MS = 10_000;
/** A line with no newline yet is held up to this many characters. */
const HOLD_CHARS = 64 * 1024;

/** A stdio server's stderr, a log entry a line, bounded so it cannot flood the log, each line redacted before it is cut (docs/guardrails.md). */
export function logStderr(stream: Readable, log: Logger, records: Pick<SecretScanner, 'redact'>): void {
  let pending = '';
  let windowStart = 0;
  let logged = 0;
  let dropped = 0;
  const line = (text: string) => {
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      if (dropped > 0) log.warn({ dropped_lines: dropped }, 'MCP server stderr: lines dropped over the log bound');
      windowStart = now;
      logged = 0;
      dropped = 0;
    }
    if (logged >= LINES_PER_WINDOW) {
      dropped++;
      return;
    }
    logged++;
    const shown = records.redact(text).text;
    log.info({ stderr: shown.length > LINE_CHARS ? `${shown.slice(0, LINE_CHARS)}…` : shown }, 'MCP server stderr');
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    if (pending.length > HOLD_CHARS) {
      lines.push(pending);
      pending = '';
    }
    for (const text of lines) if (text.trim() !== '') line(text.replace(/\r$/, ''));
  });
  stream.on('end', () => {
    if (pending.trim() !== '') line(pending);
    if (dropped > 0) log.warn({ dropped_lines: dropped }, 'MCP server stderr: lines dropped over the log bound');
  });
}
