import path from 'node:path';
import { GatewayError } from '../../protocol/errors.js';
import type { PathRules } from '../../policy/index.js';
import { cutOutsideMarkers, redactedLines, redactedView, type RedactionCounts } from '../../guardrails/index.js';
import type { Tool, ToolContext, ToolOutput, ToolSecrets } from '../tool.js';
import { statNow } from '../path-errors.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted, type Abortable } from './abort.js';
import { optionalBoolean, optionalNumber, optionalString, requireString } from './args.js';
import { compileGlob } from './glob-match.js';
import { READ_FLAGS } from './read.js';
import { compileSearchPattern, type LinePattern } from './regex.js';
import { cutLine, looksBinary } from './text.js';
import { patternProperty, resolveAsJudged, startProperty, walkFiles, walkOutput, type FileWalk, type WalkedFile } from './walk.js';
import { linkNames } from './link-names.js';
import { entryJudge, Withheld } from './withheld.js';
import { counted } from '../../shared/count.js';

const DEFAULT_GREP_RESULTS = 100;
const MAX_GREP_RESULTS = 1000;
/** Files over this are skipped (and counted in a note): they are data or builds more often than code. */
export const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
/** Only a line's first characters are searched, so one long line cannot dominate a search. */
export const MAX_SEARCHED_LINE_CHARS = 2000;
const SHOWN_LINE_CHARS = 500;

type FileOutcome = 'skipped-large' | 'searched';

/**
 * The matching lines of one file, as a model may see them: the pattern is
 * matched against each line with its credentials redacted (the file scanned
 * whole), so whether a line matched never depends on a value the model was
 * not shown; and a shown line is cut after the scan.
 */
async function searchFile(
  ws: Workspace,
  file: WalkedFile,
  regex: LinePattern,
  room: number,
  out: string[],
  secrets: ToolSecrets | undefined,
): Promise<FileOutcome> {
  const handle = await ws.open(file.abs, READ_FLAGS);
  let bytes: Buffer;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return 'searched';
    if (stats.size > MAX_GREP_FILE_BYTES) return 'skipped-large';
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  if (looksBinary(bytes)) return 'searched';
  const shown = ws.relative(file.abs);
  const text = bytes.toString('utf8');
  const view = redactedLines(secrets?.scanner, text);
  const lines = view?.lines ?? text.split('\n');
  const shownKinds: RedactionCounts = {};
  for (let i = 0; i < lines.length && room > 0; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (!regex.test(line.length > MAX_SEARCHED_LINE_CHARS ? line.slice(0, cutOutsideMarkers(line, MAX_SEARCHED_LINE_CHARS)) : line))
      continue;
    out.push(`${shown}:${i + 1}:${cutLine(line, SHOWN_LINE_CHARS)}`);
    for (const kind of view?.kinds.get(i) ?? []) shownKinds[kind] = (shownKinds[kind] ?? 0) + 1;
    room--;
  }
  if (secrets && view) secrets.count(shownKinds);
  return 'searched';
}

/**
 * `args` as for Workspace.resolveExisting: the search starts where the policy decision resolved `shown`. A file
 * named by `path` is the one the permission gate judged; a directory's files are judged one by one.
 */
async function filesToSearch(
  ws: Workspace,
  paths: PathRules,
  shown: string,
  args: Record<string, unknown>,
  wanted: (rel: string) => boolean,
  call: Abortable,
): Promise<FileWalk> {
  const real = await resolveAsJudged(ws, shown, args);
  const stats = await statNow(shown, real);
  if (stats.isDirectory())
    return walkFiles(real, call, { wanted, judge: entryJudge(ws, paths, 'Grep', args, shown, real, await linkNames(ws, paths))?.below });
  if (!stats.isFile()) throw new GatewayError('INVALID_ARGS', { message: `${JSON.stringify(shown)} is neither a file nor a directory.` });
  const files = [{ abs: real, rel: path.basename(real) }].filter((file) => wanted(file.rel));
  return { files, truncated: false, withheld: new Withheld() };
}

/**
 * A glob without "/" matches file names (as in ripgrep's --glob); with one, paths relative to the search base. Either is
 * matched against the path as a model may see it (credentials in a name redacted).
 */
function fileFilter(glob: string | undefined, secrets: ToolSecrets | undefined): (rel: string) => boolean {
  if (glob === undefined) return () => true;
  const isMatch = compileGlob(glob);
  const seen = (rel: string) => redactedView(secrets?.scanner, rel).text;
  return glob.includes('/') ? (rel) => isMatch(seen(rel)) : (rel) => isMatch(seen(path.posix.basename(rel)));
}

export function createGrepTool(paths: PathRules): Tool {
  return {
    name: 'Grep',
    description:
      'Search file contents in the workspace with a regular expression (RE2 syntax: like JavaScript without lookaround or backreferences). Returns matching lines as ' +
      '`path:line:text` (path relative to the workspace root, line 1-based), at most `max_results` (default ' +
      `${DEFAULT_GREP_RESULTS}). Searches a file or every file under a directory, skipping .git, node_modules, binary files, ` +
      `files over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MiB and symbolic links; only the first ${MAX_SEARCHED_LINE_CHARS} characters ` +
      'of a line are searched. ' +
      'Use Glob to find files by name, Read to see a match in context.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['pattern'],
      properties: {
        pattern: patternProperty('Regular expression in RE2 syntax (no slashes, no flags), e.g. "function\\s+\\w+".', [
          'TODO',
          "import .* from 'react'",
          'class\\s+\\w+Error',
        ]),
        path: startProperty('File or directory to search, relative to the workspace root. Defaults to the root.', ['src', 'README.md']),
        glob: {
          type: 'string',
          minLength: 1,
          maxLength: 1000,
          description: 'Only search files whose path (relative to path) matches this glob; a pattern without "/" matches file names.',
          examples: ['*.ts', 'src/**/*.{js,jsx}'],
        },
        ignore_case: {
          type: 'boolean',
          default: false,
          description: 'Match letters regardless of case.',
          examples: [true],
        },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_GREP_RESULTS,
          default: DEFAULT_GREP_RESULTS,
          description: 'Stop after this many matching lines.',
          examples: [20],
        },
      },
      examples: [{ pattern: 'TODO' }, { pattern: 'useState\\(', path: 'src', glob: '*.tsx', max_results: 50 }],
    },
    concurrencySafe: true,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const ws = ctx.workspace;
      const regex = compileSearchPattern(requireString(args, 'pattern'), optionalBoolean(args, 'ignore_case') ?? false);
      const glob = optionalString(args, 'glob');
      const max = optionalNumber(args, 'max_results', 1, MAX_GREP_RESULTS, true) ?? DEFAULT_GREP_RESULTS;
      const wanted = fileFilter(glob, ctx.secrets);
      throwIfAborted(ctx);
      const walk = await filesToSearch(ws, paths, optionalString(args, 'path') ?? '.', args, wanted, ctx);
      const matches: string[] = [];
      let skippedLarge = 0;
      for await (const file of walk.files) {
        throwIfAborted(ctx);
        if ((await searchFile(ws, file, regex, max - matches.length, matches, ctx.secrets)) === 'skipped-large') skippedLarge++;
        if (matches.length === max) break;
      }
      const hitMax = matches.length === max;
      const notes: string[] = [];
      if (hitMax) notes.push(`(stopped at max_results=${max}; narrow the pattern, path or glob to see the rest)`);
      if (skippedLarge > 0) notes.push(`(${counted(skippedLarge, 'file')} over ${MAX_GREP_FILE_BYTES} bytes not searched)`);
      return walkOutput(walk, matches, 'No matches.', notes, hitMax);
    },
  };
}
