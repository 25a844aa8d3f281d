import { stat } from 'node:fs/promises';
import { GatewayError } from '../../protocol/errors.js';
import { mapResolveError } from '../path-errors.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import { throwIfAborted } from './abort.js';
import { filePathProperty, requireFilePath, requireString } from './args.js';
import { writeAtomic } from './atomic-write.js';
import { classifyPath } from './config-paths.js';
import { LOCK_PARAMETERS } from './lock-params.js';
import { assertExpected, expectedFrom, stampOf } from './stamp.js';
import { counted } from '../../shared/count.js';

function countLines(content: string): number {
  if (content === '') return 0;
  const breaks = content.split('\n').length - 1;
  return content.endsWith('\n') ? breaks : breaks + 1;
}

export function createWriteTool(): Tool {
  return {
    name: 'Write',
    description:
      'Create a file in the workspace or replace its whole content. Missing parent directories are created; ' +
      'an overwritten file keeps its permissions. The write is atomic: readers see the old content or the new, never a mix. ' +
      'To change part of an existing file prefer Edit. Before overwriting an existing file, Read it: if it changed since, ' +
      'the call fails with CONFLICT and the file is left as it is. Returns the new file_mtime_ms and file_size_bytes in data.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'content'],
      properties: {
        path: filePathProperty(['src/config.json', 'notes/todo.md']),
        content: {
          type: 'string',
          description: 'The complete new content of the file.',
          examples: ['{\n  "debug": false\n}\n'],
        },
        ...LOCK_PARAMETERS,
      },
      examples: [{ path: 'notes/todo.md', content: '# TODO\n\n- write tests\n' }],
    },
    concurrencySafe: false,
    lock: { role: 'write', pathArg: 'path' },
    contentArgs: ['content'],
    classify: classifyPath,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const ws = ctx.workspace;
      const shown = requireFilePath(args, 'path');
      const content = requireString(args, 'content');
      const expected = expectedFrom(args);
      throwIfAborted(ctx);
      const target = await ws.resolveTarget(shown, args);
      // A first look, without the lock: a file in the way or a stale expectation is answered before anything is written.
      const before = await stat(target.path).catch((err: NodeJS.ErrnoException) => {
        // Nothing there, or a parent swapped since it was resolved: writeAtomic answers those (and a path too long) as it meets them.
        if (err.code === 'ENOENT' || err.code === 'ENAMETOOLONG' || err.code === 'ENOTDIR' || err.code === 'ELOOP') return null;
        throw mapResolveError(shown, err);
      });
      if (before !== null && !before.isFile()) {
        throw new GatewayError('INVALID_ARGS', {
          message: `${JSON.stringify(shown)} is ${before.isDirectory() ? 'a directory' : 'not a regular file'}; Write replaces files only.`,
          suggestion: 'Give the path of a file, e.g. "dir/name.txt".',
        });
      }
      assertExpected(before && stampOf(before), expected, shown);
      const stamp = await writeAtomic(ws, target.path, content, {
        mode: before === null ? undefined : before.mode & 0o7777,
        call: ctx,
        // The check that counts, with the file's lock held (see writeAtomic).
        check: (current) => assertExpected(current, expected, shown),
      });
      const verb = before === null ? 'Created' : 'Overwrote';
      return {
        text: `${verb} ${shown} (${counted(stamp.file_size_bytes, 'byte')}, ${counted(countLines(content), 'line')}).`,
        data: stamp,
      };
    },
  };
}
