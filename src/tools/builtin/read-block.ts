import { redactedLines, type RedactionCounts, type SecretScanner } from '../../guardrails/index.js';
import type { ToolSecrets } from '../tool.js';
import { cutLine } from './text.js';

/** The longest open block kept before a Read's window: the longest text one credential can span (a PEM block of 400 lines). */
const MAX_BLOCK_CHARS = 96 * 1024;

/**
 * The lines before a Read's window since an unclosed `-----BEGIN ` line: without it no rule tells a key's body from other base64, so a
 * line-by-line Read would give the whole key. The window is scanned with this block before it (redactWindow).
 */
export class OpenBlock {
  lines: string[] = [];
  private chars = 0;

  /** Sees a line before the window. */
  before(line: string): void {
    if (line.includes('-----BEGIN ')) {
      this.lines = [line];
      this.chars = line.length;
    } else if (this.lines.length > 0) {
      this.lines.push(line);
      this.chars += line.length + 1;
      // Closed, or longer than any credential the rules find: nothing before the window can reach into it.
      if (line.includes('-----END ') || this.chars > MAX_BLOCK_CHARS) this.lines = [];
    }
  }
}

/** The window's raw lines as a model may see them, scanned after `open`; undefined when nothing is redacted (counted in `counts`). */
function redactWindow(scanner: SecretScanner, open: readonly string[], window: readonly string[], counts: RedactionCounts) {
  const seen = redactedLines(scanner, [...open, ...window].join('\n'));
  if (seen === undefined) return undefined;
  const kinds = new Set<string>();
  const lines = window.map((line, i) => {
    for (const kind of seen.kinds.get(open.length + i) ?? []) kinds.add(kind);
    return seen.kinds.has(open.length + i) ? seen.lines[open.length + i]! : line;
  });
  if (kinds.size === 0) return undefined;
  // A credential shows on every line it covers: counted once in the window.
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return lines;
}

/** The numbered lines of a window that starts inside `open.before`'s block, each a credential covers part of shown with its marker. */
export function showOpenBlock(
  numbered: string[],
  open: { before: readonly string[]; raw: readonly string[] },
  offset: number,
  secrets: ToolSecrets,
  maxLineChars: number,
): void {
  const counts: RedactionCounts = {};
  const seen = redactWindow(secrets.scanner, open.before, open.raw, counts);
  seen?.forEach((line, i) => (numbered[i] = `${String(offset + i).padStart(6)}\t${cutLine(line, maxLineChars)}`));
  secrets.count(counts);
}
