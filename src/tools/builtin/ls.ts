import { readdir, stat } from 'node:fs/promises';
import { GatewayError } from '../../protocol/errors.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import type { Workspace } from '../workspace.js';
import { throwIfAborted } from './abort.js';
import { optionalString } from './args.js';
import { byName, resolveAsJudged } from './walk.js';

export const MAX_LS_ENTRIES = 1000;

export function createLsTool(ws: Workspace): Tool {
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
        path: {
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          default: '.',
          description: 'Directory relative to the workspace root. Defaults to the root.',
          examples: ['.', 'src/components'],
        },
      },
      examples: [{}, { path: 'src' }],
    },
    concurrencySafe: true,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const shown = optionalString(args, 'path') ?? '.';
      throwIfAborted(ctx.signal);
      const real = await resolveAsJudged(ws, shown, args);
      if (!(await stat(real)).isDirectory()) {
        throw new GatewayError('INVALID_ARGS', {
          message: `${JSON.stringify(shown)} is a file, not a directory.`,
          suggestion: 'Use Read to open a file; LS lists directories.',
        });
      }
      const entries = (await readdir(real, { withFileTypes: true })).sort(byName);
      const shownEntries = entries.slice(0, MAX_LS_ENTRIES).map((entry) => {
        if (entry.isDirectory()) return `${entry.name}/`;
        return entry.isSymbolicLink() ? `${entry.name}@` : entry.name;
      });
      const cut = entries.length > MAX_LS_ENTRIES;
      if (shownEntries.length === 0) return { text: '(empty directory)' };
      const notes = cut ? [`(${entries.length - MAX_LS_ENTRIES} more entries not shown; use Glob to narrow down)`] : [];
      return { text: [shownEntries.join('\n'), ...notes].join('\n\n'), partial: cut };
    },
  };
}
