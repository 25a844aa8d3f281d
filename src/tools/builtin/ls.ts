import type { Dirent } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { stricter, type Decision, type PathRules } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import { statNow } from '../path-errors.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted } from './abort.js';
import { optionalString } from './args.js';
import { listDirectory, resolveAsJudged, startProperty } from './walk.js';
import { linkNames } from './link-names.js';
import { entryJudge, Withheld, type WalkJudge } from './withheld.js';
import { counted } from '../../shared/count.js';

export const MAX_LS_ENTRIES = 1000;

/**
 * The policy's decision on one entry of the listed directory `real`: by its own path, and for a symbolic link also
 * by where it leads inside the workspace, as the permission gate judges a path through a link.
 */
async function judgeEntry(ws: Workspace, judge: WalkJudge, real: string, entry: Dirent): Promise<Decision> {
  const own = judge.below(entry.name);
  if (own === 'deny' || !entry.isSymbolicLink()) return own;
  const target = await realpath(path.join(real, entry.name)).catch(() => undefined);
  const inside = target === undefined ? undefined : ws.relative(target);
  // A link out of the workspace leads nowhere a rule speaks of; Read refuses it anyway.
  if (inside === undefined || inside === '..' || inside.startsWith('../')) return own;
  return stricter(own, judge.at(inside));
}

export function createLsTool(paths: PathRules): Tool {
  return {
    name: 'LS',
    description:
      'List one directory of the workspace. Returns its entries sorted by name, one a line: directories end with "/", ' +
      `symbolic links with "@" (like \`ls -F\`); at most ${MAX_LS_ENTRIES}. Hidden entries are included. ` +
      'Use Glob to find files at any depth, Read to open a file.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: [],
      properties: {
        path: startProperty('Directory relative to the workspace root. Defaults to the root.', ['.', 'src/components']),
      },
      examples: [{}, { path: 'src' }],
    },
    concurrencySafe: true,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const ws = ctx.workspace;
      const shown = optionalString(args, 'path') ?? '.';
      throwIfAborted(ctx);
      const real = await resolveAsJudged(ws, shown, args);
      if (!(await statNow(shown, real)).isDirectory()) {
        throw new GatewayError('INVALID_ARGS', {
          message: `${JSON.stringify(shown)} is a file, not a directory.`,
          suggestion: 'Use Read to open a file; LS lists directories.',
        });
      }
      const listed = await listDirectory(real);
      if (!listed) {
        throw new GatewayError('CONFLICT', {
          message: `${JSON.stringify(shown)} was removed or replaced while being listed; nothing was listed.`,
          suggestion: 'List it again.',
        });
      }
      let entries = listed;
      const withheld = new Withheld();
      const judge = entryJudge(ws, paths, 'LS', args, shown, real, await linkNames(ws, paths));
      if (judge) {
        const decisions = await Promise.all(entries.map((entry) => judgeEntry(ws, judge, real, entry)));
        entries = entries.filter((_, i) => !withheld.withholds(decisions[i]!));
      }
      const shownEntries = entries.slice(0, MAX_LS_ENTRIES).map((entry) => {
        if (entry.isDirectory()) return `${entry.name}/`;
        return entry.isSymbolicLink() ? `${entry.name}@` : entry.name;
      });
      const cut = entries.length > MAX_LS_ENTRIES;
      const notes = cut
        ? [`(${counted(entries.length - MAX_LS_ENTRIES, 'more entry', 'more entries')} not shown; use Glob to narrow down)`]
        : [];
      notes.push(...withheld.note);
      const text = [shownEntries.length === 0 ? '(empty directory)' : shownEntries.join('\n'), ...notes].join('\n\n');
      return { text, partial: cut, ...(withheld.data && { data: withheld.data }) };
    },
  };
}
