import { MARKER, overlapsRedaction, rawOffset, redactedView, unmasks, type SecretScanner } from '../../guardrails/index.js';
import { GatewayError } from '../../protocol/errors.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted } from './abort.js';
import { filePathProperty, optionalBoolean, requireFilePath, requireString } from './args.js';
import { writeAtomic } from './atomic-write.js';
import { classifyPath } from './config-paths.js';
import { LOCK_PARAMETERS } from './lock-params.js';
import { READ_FLAGS } from './read.js';
import { assertExpected, expectedFrom, expectedOf, stampOf, type Expected, type FileStamp } from './stamp.js';
import { looksBinary } from './text.js';

/** Edit holds the whole file in memory twice; bigger files (before or after the edit) are for Write. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;

// fatal: a file that is not valid UTF-8 would be silently altered on the way back; ignoreBOM: keep a BOM in the text so it is written back.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Loaded {
  content: string;
  stamp: FileStamp;
  mode: number;
}

export async function load(ws: Workspace, real: string, shown: string): Promise<Loaded> {
  const handle = await ws.open(real, READ_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      throw new GatewayError('INVALID_ARGS', { message: `${JSON.stringify(shown)} is not a regular file; Edit changes files only.` });
    if (stats.size > MAX_EDIT_BYTES) {
      throw new GatewayError('INVALID_ARGS', {
        message: `${JSON.stringify(shown)} is ${stats.size} bytes, over Edit's ${MAX_EDIT_BYTES}-byte limit.`,
        suggestion: 'Split the file, or rewrite it with Write.',
      });
    }
    const bytes = await handle.readFile();
    if (looksBinary(bytes))
      throw new GatewayError('INVALID_ARGS', {
        message: `${JSON.stringify(shown)} looks like a binary file; Edit changes text files only.`,
      });
    let content: string;
    try {
      content = decoder.decode(bytes);
    } catch {
      throw new GatewayError('INVALID_ARGS', {
        message: `${JSON.stringify(shown)} is not valid UTF-8; editing it as text would corrupt it.`,
      });
    }
    return { content, stamp: stampOf(stats), mode: stats.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

/** Where `needle` occurs in `haystack`, left to right, none overlapping. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

export function createEditTool(): Tool {
  return {
    name: 'Edit',
    description:
      'Replace an exact string in a workspace file. `old_string` must match the file byte for byte (indentation and ' +
      'line breaks included; copy it from Read output without the line-number prefix) and, unless `replace_all` is true, ' +
      'occur exactly once: include a few surrounding lines to make it unique. Read the file first: if it changed since, ' +
      'the call fails with CONFLICT and the file is left as it is. The write is atomic. Returns how many occurrences were ' +
      'replaced, and the new file_mtime_ms and file_size_bytes in data. To create a file or replace all of it use Write.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'old_string', 'new_string'],
      properties: {
        path: filePathProperty(['src/app.ts']),
        old_string: {
          type: 'string',
          minLength: 1,
          description: 'The exact text to replace.',
          examples: ['const retries = 3;'],
        },
        new_string: {
          type: 'string',
          description: 'The text to put in its place (may be empty to delete); must differ from old_string.',
          examples: ['const retries = 5;'],
        },
        replace_all: {
          type: 'boolean',
          default: false,
          description: 'Replace every occurrence instead of requiring exactly one.',
          examples: [true],
        },
        ...LOCK_PARAMETERS,
      },
      examples: [
        { path: 'src/app.ts', old_string: 'const retries = 3;', new_string: 'const retries = 5;' },
        { path: 'src/app.ts', old_string: 'oldName', new_string: 'newName', replace_all: true },
      ],
    },
    concurrencySafe: false,
    classify: classifyPath,
    lock: { role: 'write', pathArg: 'path' },
    contentArgs: ['old_string', 'new_string'],
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const ws = ctx.workspace;
      const shown = requireFilePath(args, 'path');
      const oldString = requireString(args, 'old_string');
      const newString = requireString(args, 'new_string');
      const replaceAll = optionalBoolean(args, 'replace_all') ?? false;
      const expected = expectedFrom(args);
      if (oldString === '')
        throw new GatewayError('INVALID_ARGS', { message: 'old_string is empty.', suggestion: 'To create or fill a file use Write.' });
      if (oldString === newString)
        throw new GatewayError('INVALID_ARGS', { message: 'old_string and new_string are the same; there is nothing to change.' });
      throwIfAborted(ctx);
      const real = await ws.resolveExisting(shown, args);
      return editFile(ws, real, shown, { oldString, newString, replaceAll, expected }, ctx);
    },
  };
}

interface EditRequest {
  oldString: string;
  newString: string;
  replaceAll: boolean;
  expected: Expected;
}

/**
 * The file's content with the edit made; throws as the call would. With `scanner`, old_string matches the file as a model sees it
 * (docs/guardrails.md, "No oracle"): a raw credential never matches, an occurrence covering a marker is refused, others map back exactly.
 */
export function applyEdit(
  content: string,
  sizeBytes: number,
  request: Omit<EditRequest, 'expected'>,
  shown: string,
  scanner?: SecretScanner,
): { updated: string; replaced: number } {
  const { oldString, newString, replaceAll } = request;
  const view = redactedView(scanner, content);
  const found = occurrences(view.text, oldString);
  const count = found.length;
  if (count === 0 && MARKER.test(oldString)) {
    throw new GatewayError('INVALID_ARGS', {
      message: `old_string holds ${MARKER.exec(oldString)![0]}: the text there held a secret that was redacted before you saw it, so ${shown} does not contain old_string as you read it.`,
      suggestion: 'Edit around it: choose an old_string from lines without a redaction marker, or ask the user to change that line.',
    });
  }
  if (count === 0) {
    throw new GatewayError('INVALID_ARGS', {
      message: `old_string was not found in ${shown}.`,
      suggestion: 'Read the file again and copy the text exactly, including indentation and line breaks.',
    });
  }
  if (count > 1 && !replaceAll) {
    throw new GatewayError('INVALID_ARGS', {
      message: `old_string occurs ${count} times in ${shown}; Edit needs exactly one match.`,
      suggestion: 'Include more surrounding lines in old_string so it matches once, or set replace_all to true.',
      details: { occurrences: count },
    });
  }
  const chosen = replaceAll ? found : found.slice(0, 1);
  if (chosen.some((at) => overlapsRedaction(view, at, at + oldString.length))) {
    throw new GatewayError('INVALID_ARGS', {
      message: `old_string covers a value that was redacted before you saw it (shown as [REDACTED:<kind>]); Edit will not replace what you were never shown, and ${shown} was left as it is.`,
      suggestion:
        'Edit around it: choose an old_string that ends before the marker or starts after it, or ask the user to change that value.',
    });
  }
  // Bound what the replacement builds before building it: a short old_string replaced everywhere could make a string of gigabytes.
  const resultBytes = sizeBytes + count * (Buffer.byteLength(newString) - Buffer.byteLength(oldString));
  if (resultBytes > MAX_EDIT_BYTES) {
    throw new GatewayError('INVALID_ARGS', {
      message: `Replacing ${count} occurrence${count === 1 ? '' : 's'} would make ${shown} ${resultBytes} bytes, over Edit's ${MAX_EDIT_BYTES}-byte limit; nothing was changed.`,
      suggestion: 'Replace fewer occurrences at a time, or write the new content with Write.',
      details: { occurrences: count, result_bytes: resultBytes, limit: MAX_EDIT_BYTES },
    });
  }
  let updated = '';
  let at = 0;
  // Where each replacement ended in the raw text: a value at or after it moves by the growth of the replacements so far.
  const ends: number[] = [];
  for (const start of chosen) {
    const raw = rawOffset(view, start);
    updated += content.slice(at, raw) + newString;
    at = raw + oldString.length;
    ends.push(at);
  }
  updated += content.slice(at);
  const growth = newString.length - oldString.length;
  const moved = (raw: number) => raw + growth * ends.filter((end) => end <= raw).length;
  if (scanner && unmasks(scanner, view, updated, moved)) {
    throw new GatewayError('INVALID_ARGS', {
      message: `This edit would make a value that was redacted before you saw it (shown as [REDACTED:<kind>]) read as ordinary text, by changing what stands next to it or the name before it; Edit will not unmask it, and ${shown} was left as it is.`,
      suggestion: 'Leave the text touching a marker and the name before it as they are, or ask the user to make that change.',
    });
  }
  return { updated, replaced: chosen.length };
}

/** Load, replace (matching the redacted view, see applyEdit) and write back, unless the file changed since it was loaded: checked with its lock held (see writeAtomic). */
async function editFile(ws: Workspace, real: string, shown: string, request: EditRequest, call: ToolContext): Promise<ToolOutput> {
  const scanner = call.secrets?.scanner;
  const { content, stamp, mode } = await load(ws, real, shown);
  assertExpected(stamp, request.expected, shown);
  const { updated, replaced } = applyEdit(content, stamp.file_size_bytes, request, shown, scanner);
  const written = await writeAtomic(ws, real, updated, {
    mode,
    call,
    // Whatever the caller expected, the change was computed from `stamp`; anything newer must not be overwritten.
    check: (current) => assertExpected(current, expectedOf(stamp), shown),
  });
  return { text: `Replaced ${replaced} occurrence${replaced === 1 ? '' : 's'} in ${shown}.`, data: written };
}
