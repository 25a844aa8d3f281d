import { GatewayError } from '../../protocol/errors.js';
import type { PathRules } from '../../policy/index.js';
import { redactedView } from '../../guardrails/index.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import { statNow } from '../path-errors.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted } from './abort.js';
import { optionalString, requireString } from './args.js';
import { compileGlob } from './glob-match.js';
import { patternProperty, resolveAsJudged, startProperty, walkFiles, walkOutput } from './walk.js';
import { linkNames } from './link-names.js';
import { entryJudge } from './withheld.js';

export const MAX_GLOB_RESULTS = 1000;

/** The real directory a search starts in; INVALID_ARGS when `shown` names a file. `args` as for Workspace.resolveExisting. */
async function searchBase(ws: Workspace, shown: string, tool: string, args: object): Promise<string> {
  const real = await resolveAsJudged(ws, shown, args);
  if (!(await statNow(shown, real)).isDirectory()) {
    throw new GatewayError('INVALID_ARGS', {
      message: `${JSON.stringify(shown)} is a file; ${tool} needs a directory in path.`,
      suggestion: 'Use Read for a single file, or pass its directory.',
    });
  }
  return real;
}

function checkPattern(pattern: string): void {
  if (pattern.startsWith('/')) {
    throw new GatewayError('INVALID_ARGS', {
      message: 'Glob patterns are relative to path, not absolute.',
      suggestion: 'Put the directory in path and the rest in pattern, e.g. path "src", pattern "**/*.ts".',
    });
  }
  if (pattern.split('/').includes('..')) {
    throw new GatewayError('PERMISSION_DENIED', {
      message: 'Glob patterns may not contain ".." segments; a glob only matches inside path.',
      suggestion: 'Set path to the directory to search (inside the workspace) instead.',
    });
  }
}

export function createGlobTool(paths: PathRules): Tool {
  return {
    name: 'Glob',
    description:
      'Find files in the workspace by name pattern (glob syntax: `*` within a directory, `**` across directories, ' +
      '`{a,b}` alternatives, `[abc]` classes), matched against paths relative to `path`. Dotfiles match. ' +
      `Returns matching file paths relative to the workspace root, one a line, sorted by name, at most ${MAX_GLOB_RESULTS}. ` +
      'Skips .git and node_modules and does not follow symbolic links. Use Grep to search file contents, LS to list one directory.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['pattern'],
      properties: {
        pattern: patternProperty('Glob pattern relative to path. "*.ts" matches only directly inside path; "**/*.ts" at any depth.', [
          '**/*.ts',
          'src/**/*.test.{ts,js}',
          '*.md',
        ]),
        path: startProperty('Directory to search in, relative to the workspace root. Defaults to the root.', ['src', '.']),
      },
      examples: [{ pattern: '**/*.ts' }, { pattern: '*.json', path: 'config' }],
    },
    concurrencySafe: true,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const ws = ctx.workspace;
      const pattern = requireString(args, 'pattern');
      checkPattern(pattern);
      throwIfAborted(ctx);
      const shown = optionalString(args, 'path') ?? '.';
      const base = await searchBase(ws, shown, 'Glob', args);
      const isMatch = compileGlob(pattern);
      // Matched against the path as a model may see it: a pattern can never tell it anything about a credential in a name.
      const wanted = (rel: string) => isMatch(redactedView(ctx.secrets?.scanner, rel).text);
      const walk = walkFiles(base, ctx, {
        wanted,
        judge: entryJudge(ws, paths, 'Glob', args, shown, base, await linkNames(ws, paths))?.below,
      });
      const found: string[] = [];
      let cut = false;
      for await (const file of walk.files) {
        if (found.length === MAX_GLOB_RESULTS) {
          cut = true;
          break;
        }
        found.push(ws.relative(file.abs));
      }
      found.sort();
      const notes = cut ? [`(stopped at ${MAX_GLOB_RESULTS} files; use a narrower pattern or path)`] : [];
      return walkOutput(walk, found, 'No files matched.', notes, cut);
    },
  };
}
