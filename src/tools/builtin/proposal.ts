import { stat } from 'node:fs/promises';
import { GatewayError } from '../../protocol/errors.js';
import type { FileStampView, ProposedChange } from '../capabilities.js';
import type { Tool } from '../tool.js';
import type { Workspace } from '../workspace-types.js';
import { optionalBoolean, requireFilePath, requireString } from './args.js';
import { applyEdit, load } from './edit.js';
import { stampOf } from './stamp.js';

// An approval's preview (docs/policy.md): the file read as the tool would, never written, and nothing resolved for the call used up.

/** The file at a workspace-relative path now; null when nothing (or no regular file) is there. */
async function stampNow(path: string, ws: Workspace): Promise<FileStampView | null> {
  try {
    const stats = await stat((await ws.resolveTarget(path)).path);
    return stats.isFile() ? stampOf(stats) : null;
  } catch {
    return null;
  }
}

/** Write: the file's text now, when there is a text file to replace, against the content the call writes. */
export const writeProposal: Pick<Tool, 'proposeChange' | 'stampNow'> = {
  async proposeChange(args, ws): Promise<ProposedChange> {
    const shown = requireFilePath(args, 'path');
    const after = requireString(args, 'content');
    const target = await ws.resolveTarget(shown);
    const path = ws.relative(target.path);
    if (!target.exists) return { path, before: null, after, base: null };
    const before = await stat(target.path);
    if (!before.isFile())
      throw new GatewayError('INVALID_ARGS', { message: `${JSON.stringify(shown)} is not a regular file; Write replaces files only.` });
    try {
      const loaded = await load(ws, target.path, shown);
      return { path, before: loaded.content, after, base: loaded.stamp };
    } catch (err) {
      // Write replaces what Edit could not read (binary, over Edit's size limit): the preview shows the new content only.
      if (!(err instanceof GatewayError) || err.code !== 'INVALID_ARGS') throw err;
      return {
        path,
        before: '',
        after,
        base: stampOf(before),
        note: `The file there now is not shown (${err.message}); the diff shows only the new content.`,
      };
    }
  },
  stampNow,
};

/** Edit: the file's text now against the same text with the edit made, as the call would make it. */
export const editProposal: Pick<Tool, 'proposeChange' | 'stampNow'> = {
  async proposeChange(args, ws, scanner): Promise<ProposedChange> {
    const shown = requireFilePath(args, 'path');
    const request = {
      oldString: requireString(args, 'old_string'),
      newString: requireString(args, 'new_string'),
      replaceAll: optionalBoolean(args, 'replace_all') ?? false,
    };
    const real = await ws.resolveExisting(shown);
    const { content, stamp } = await load(ws, real, shown);
    const { updated } = applyEdit(content, stamp.file_size_bytes, request, shown, scanner);
    return { path: ws.relative(real), before: content, after: updated, base: stamp };
  },
  stampNow,
};
