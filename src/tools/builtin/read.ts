import { closeSync, constants, fstatSync, read } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';
import { GatewayError } from '../../protocol/errors.js';
import { cutOutsideMarkers, redactedView, viewCounts } from '../../guardrails/index.js';
import type { Tool, ToolContext, ToolOutput, ToolSecrets } from '../tool.js';
import { throwIfAborted, type Abortable } from './abort.js';
import { filePathProperty, optionalNumber, requireFilePath } from './args.js';
import { ImageFile, readImage } from './image-file.js';
import { imageTypeOf } from '../media.js';
import { stampOf } from './stamp.js';
import { cutLine, looksBinary, SNIFF_BYTES, utf16Units } from './text.js';
import { OpenBlock, showOpenBlock } from './read-block.js';
import { counted } from '../../shared/count.js';

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
/** Characters past MAX_LINE_CHARS scanned before the cut: the longest one-line credential, so one is never half shown. */
const SCANNED_PAST_CUT = 16 * 1024;
const CHUNK_BYTES = 64 * 1024;
/** Bytes past the cut of long lines one Read scans for their ends, undecoded; a line ending further off stops the Read there. */
export const MAX_SCAN_BYTES = 8 * 1024 * 1024;
/** The first read's buffer: the file's size plus one (a short read ends the loop), at most 64 KB (docs/performance-notebook.md); not zeroed. */
function readBufferFor(size: number): Buffer {
  return Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size + 1));
}

/** Flags for opening a file only to read it: O_NONBLOCK so a FIFO planted in the workspace cannot hang the open. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

const readAsync = promisify(read);

interface Window {
  offset: number;
  limit: number;
}

interface Lines {
  numbered: string[];
  /** Lines seen; the whole file's count when `more` is false. */
  seen: number;
  more: boolean;
  cut: boolean;
  /** The line whose end was past MAX_SCAN_BYTES: the Read stopped in it. */
  stoppedIn?: number;
  /** A private key open before the window, and the window's raw lines (see OpenBlock). */
  open?: { before: string[]; raw: string[] };
}

/** A line over MAX_LINE_CHARS as a model may see it: cut after the scan, so no credential's start is left readable. */
function cutLong(line: string, omitted: number, secrets: ToolSecrets | undefined): string {
  if (!secrets) return cutLine(line, MAX_LINE_CHARS, omitted);
  const view = redactedView(secrets.scanner, line);
  if (view.spans.length > 0) secrets.count(viewCounts(view, {}, cutOutsideMarkers(view.text, MAX_LINE_CHARS)));
  return cutLine(view.text, MAX_LINE_CHARS, omitted);
}

/**
 * `cat -n` lines of the window, streamed so memory stays bounded. `refuse` sees the first SNIFF_BYTES before they are decoded; `size` is
 * the size at the open. A line too long to show is scanned for its end, not decoded (MAX_SCAN_BYTES).
 */
async function numberLines(
  fd: number,
  window: Window,
  call: Abortable & { secrets?: ToolSecrets },
  size: number,
  refuse: (head: Buffer) => void,
): Promise<Lines> {
  const result: Lines = { numbered: [], seen: 0, more: false, cut: false };
  let decoder = new StringDecoder('utf8');
  let buffer = readBufferFor(size);
  let line = '';
  let omitted = 0;
  /** The current line is past its cut: its bytes are searched for its end, not decoded. */
  let skipping = false;
  let scanned = 0;
  const append = (piece: string): void => {
    const room = MAX_LINE_CHARS + SCANNED_PAST_CUT - line.length;
    line += piece.slice(0, room);
    omitted += Math.max(0, piece.length - room);
  };
  // With guardrails on: a private key open before the window, and the window's raw lines, scanned with it (see OpenBlock).
  const block = call.secrets && window.offset > 1 ? new OpenBlock() : undefined;
  const emit = (): boolean => {
    result.seen++;
    if (result.seen < window.offset) block?.before(line);
    else {
      if (result.numbered.length === window.limit) {
        result.more = true;
        return false;
      }
      if (result.seen === window.offset && block && block.lines.length > 0) result.open = { before: block.lines, raw: [] };
      result.open?.raw.push(line);
      const shown = line.length > MAX_LINE_CHARS ? cutLong(line, omitted, call.secrets) : line;
      result.cut ||= shown !== line;
      result.numbered.push(`${String(result.seen).padStart(6)}\t${shown}`);
    }
    line = '';
    omitted = 0;
    return true;
  };
  for (let total = 0; ;) {
    throwIfAborted(call);
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, null);
    if (total < SNIFF_BYTES) refuse(buffer.subarray(0, Math.min(bytesRead, SNIFF_BYTES - total)));
    total += bytesRead;
    // A short read that reaches the size the file had is its end: no second read just to be told so.
    const atEnd = bytesRead === 0 || (bytesRead < buffer.length && total >= size);
    let chunk = buffer.subarray(0, bytesRead);
    if (skipping) {
      // No byte of a multi-byte UTF-8 character is a newline, so the raw bytes can be searched.
      const nl = chunk.indexOf(0x0a);
      const rest = nl === -1 ? chunk : chunk.subarray(0, nl);
      omitted += utf16Units(rest);
      scanned += rest.length;
      if (nl === -1) {
        if (atEnd) {
          emit();
          return result;
        }
        if (scanned > MAX_SCAN_BYTES) {
          result.stoppedIn = result.seen + 1;
          emit();
          return result;
        }
        continue;
      }
      skipping = false;
      decoder = new StringDecoder('utf8');
      if (!emit()) return result;
      chunk = chunk.subarray(nl + 1);
    }
    const text = decoder.write(chunk) + (atEnd ? decoder.end() : '');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      append(text.slice(start, nl));
      start = nl + 1;
      if (!emit()) return result;
    }
    append(text.slice(start));
    if (atEnd) {
      if (line.length > 0 || omitted > 0) emit();
      return result;
    }
    if (line.length > MAX_LINE_CHARS) {
      skipping = true;
      // A character split by the chunk's end: counted as one.
      omitted += decoder.end().length;
    }
    // More to read than the first buffer was sized for (the file grew since it was opened): the rest in full chunks.
    if (buffer.length < CHUNK_BYTES) buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  }
}

const NUMBERED = /^ *(\d+)\t/;

/** The number of the last numbered line of `text`, or of the first with `first`. */
function lineNumber(text: string, first: boolean): number | undefined {
  const lines = text.split('\n');
  if (!first) lines.reverse();
  for (const line of lines) {
    const match = NUMBERED.exec(line);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Where a cut Read continues: the line after the last one shown. */
function resumeHint(kept: string, rest: string): string | undefined {
  const last = lineNumber(kept, false);
  if (last !== undefined) return `cut after line ${last}: call Read with offset=${last + 1} to continue`;
  const next = lineNumber(rest, true);
  return next === undefined ? undefined : `cut before line ${next}: call Read with offset=${next} and a smaller limit`;
}

function render(lines: Lines, window: Window, limitGiven: boolean): { text: string; partial: boolean } {
  if (lines.seen === 0) return { text: '(empty file)', partial: false };
  if (lines.stoppedIn !== undefined) {
    const stopped =
      `(line ${lines.stoppedIn} goes on for more than ${MAX_SCAN_BYTES / 1024 / 1024} MiB past its first ${MAX_LINE_CHARS} characters: ` +
      'Read stopped in it, and what follows was not read; search the file with Grep)';
    return { text: [...(lines.numbered.length > 0 ? [lines.numbered.join('\n')] : []), stopped].join('\n\n'), partial: true };
  }
  if (lines.numbered.length === 0) {
    return { text: `(the file has ${counted(lines.seen, 'line')}; offset ${window.offset} is past the end)`, partial: false };
  }
  const notes: string[] = [];
  if (lines.cut) notes.push(`(lines longer than ${MAX_LINE_CHARS} characters were cut)`);
  if (lines.more) notes.push(`(more lines follow; continue with offset=${window.offset + lines.numbered.length})`);
  const text = [lines.numbered.join('\n'), ...notes].join('\n\n');
  return { text, partial: lines.cut || (lines.more && !limitGiven) };
}

export function createReadTool(): Tool {
  return {
    name: 'Read',
    description:
      'Read a text file from the workspace. Returns its lines numbered like `cat -n` (line number, a tab, the line), ' +
      `from \`offset\` (1-based, default 1) for up to \`limit\` lines (default ${DEFAULT_READ_LIMIT}); ` +
      `lines over ${MAX_LINE_CHARS} characters are cut, and a note says how to continue when more lines follow. ` +
      'Read a file before you Edit or Write it: the gateway remembers its modification time and size, so the edit fails ' +
      'with CONFLICT instead of overwriting a change made since. A PNG, JPEG, GIF or WebP image comes back as an image; other binary files are refused. ' +
      'Use LS for directories, Glob to find files by name, Grep to search contents.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: filePathProperty(['src/index.ts', 'README.md']),
        offset: {
          type: 'integer',
          minimum: 1,
          maximum: 1_000_000_000,
          default: 1,
          description: 'Line number to start at (1-based).',
          examples: [1, 120],
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: DEFAULT_READ_LIMIT,
          default: DEFAULT_READ_LIMIT,
          description: 'How many lines to return at most.',
          examples: [200],
        },
      },
      examples: [{ path: 'src/index.ts' }, { path: 'logs/app.log', offset: 500, limit: 100 }],
    },
    concurrencySafe: true,
    lock: { role: 'read', pathArg: 'path' },
    resumeHint,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const ws = ctx.workspace;
      const shown = requireFilePath(args, 'path');
      const limitArg = optionalNumber(args, 'limit', 1, DEFAULT_READ_LIMIT, true);
      const window = {
        offset: optionalNumber(args, 'offset', 1, 1_000_000_000, true) ?? 1,
        limit: limitArg ?? DEFAULT_READ_LIMIT,
      };
      throwIfAborted(ctx);
      const real = await ws.resolveExisting(shown, args);
      // The reads go through the thread pool (a disk may answer them); the stat and the close of a descriptor just opened are synchronous.
      const fd = await ws.openDescriptor(real, READ_FLAGS);
      try {
        const stats = fstatSync(fd);
        if (stats.isDirectory()) {
          throw new GatewayError('INVALID_ARGS', {
            message: `${JSON.stringify(shown)} is a directory, not a file.`,
            suggestion: 'Use LS to list a directory, or Glob to find files in it.',
          });
        }
        if (!stats.isFile()) throw new GatewayError('INVALID_ARGS', { message: `${JSON.stringify(shown)} is not a regular file.` });
        const binary = () =>
          new GatewayError('INVALID_ARGS', {
            message: `${JSON.stringify(shown)} looks like a binary file (it contains NUL bytes or is an image cut short); Read shows text and whole images only.`,
            suggestion: 'Use Grep to check whether it contains a string, or LS to see its size.',
          });
        let first = true;
        const lines = await numberLines(fd, window, ctx, stats.size, (head) => {
          // Told by the bytes, never the name: the first read asks for the whole file or 64 KB, so it holds the signature.
          const image = first ? imageTypeOf(head) : undefined;
          first = false;
          if (image) throw new ImageFile(image);
          if (looksBinary(head)) throw binary();
        }).catch(async (err: unknown) => {
          if (!(err instanceof ImageFile)) throw err;
          return (await readImage(fd, stats.size, err.mime, ctx, stampOf(stats))) ?? Promise.reject(binary());
        });
        if ('text' in lines) return lines;
        if (lines.open && ctx.secrets) showOpenBlock(lines.numbered, lines.open, window.offset, ctx.secrets, MAX_LINE_CHARS);
        return { ...render(lines, window, limitArg !== undefined), data: stampOf(stats) };
      } finally {
        closeSync(fd);
      }
    },
  };
}
