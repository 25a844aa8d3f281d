import { closeSync, constants, fstatSync, read } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';
import { GatewayError } from '../../protocol/errors.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted, type Abortable } from './abort.js';
import { filePathProperty, optionalNumber, requireFilePath } from './args.js';
import { ImageFile, imageTypeOf, readImage } from './image-file.js';
import { stampOf } from './stamp.js';
import { cutLine, looksBinary, SNIFF_BYTES } from './text.js';
import { counted } from '../../shared/count.js';

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
const CHUNK_BYTES = 64 * 1024;
/**
 * The buffer of a file's first read: its size and one byte more (so reading all of it comes back short and ends
 * the loop), at most 64 KB; under 4 KB it comes from Node's shared buffer pool. Not zeroed: only the bytes a read
 * returned are looked at. A 64 KB buffer for every Read, whatever the file, made V8 count 64 KB of array buffer
 * per call against the heap: it drove scavenges, and under load, once a full collection had set the old-space limit
 * close to the live heap, the promoted ones kept old-space marking running back to back (docs/performance.md).
 */
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
}

/**
 * `cat -n` lines of the window, streamed so memory stays bounded even for
 * huge files or huge lines. `refuse` sees the file's first SNIFF_BYTES, in
 * one piece or more, each before it is decoded; `size` is the file's size
 * when it was opened.
 */
async function numberLines(fd: number, window: Window, call: Abortable, size: number, refuse: (head: Buffer) => void): Promise<Lines> {
  const result: Lines = { numbered: [], seen: 0, more: false, cut: false };
  const decoder = new StringDecoder('utf8');
  let buffer = readBufferFor(size);
  let line = '';
  let omitted = 0;
  const append = (piece: string): void => {
    const room = MAX_LINE_CHARS + 1 - line.length;
    line += piece.slice(0, room);
    omitted += Math.max(0, piece.length - room);
  };
  const emit = (): boolean => {
    result.seen++;
    if (result.seen >= window.offset) {
      if (result.numbered.length === window.limit) {
        result.more = true;
        return false;
      }
      const shown = cutLine(line, MAX_LINE_CHARS, omitted);
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
    const text = decoder.write(buffer.subarray(0, bytesRead)) + (atEnd ? decoder.end() : '');
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
  if (lines.numbered.length === 0) {
    return { text: `(the file has ${counted(lines.seen, 'line')}; offset ${window.offset} is past the end)`, partial: false };
  }
  const notes: string[] = [];
  if (lines.cut) notes.push(`(lines longer than ${MAX_LINE_CHARS} characters were cut)`);
  if (lines.more) notes.push(`(more lines follow; continue with offset=${window.offset + lines.numbered.length})`);
  const text = [lines.numbered.join('\n'), ...notes].join('\n\n');
  return { text, partial: lines.cut || (lines.more && !limitGiven) };
}

export function createReadTool(ws: Workspace): Tool {
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
      const shown = requireFilePath(args, 'path');
      const limitArg = optionalNumber(args, 'limit', 1, DEFAULT_READ_LIMIT, true);
      const window = {
        offset: optionalNumber(args, 'offset', 1, 1_000_000_000, true) ?? 1,
        limit: limitArg ?? DEFAULT_READ_LIMIT,
      };
      throwIfAborted(ctx);
      const real = await ws.resolveExisting(shown, args);
      // The reads go through the thread pool (a disk may answer them); the stat and the close of a descriptor just
      // opened to read are answered from the open file in memory, synchronously: a thread-pool hop costs ten times more.
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
        return { ...render(lines, window, limitArg !== undefined), data: stampOf(stats) };
      } finally {
        closeSync(fd);
      }
    },
  };
}
