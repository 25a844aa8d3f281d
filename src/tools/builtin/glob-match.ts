import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import { GatewayError } from '../../protocol/errors.js';

/**
 * picomatch's lookarounds: guards against "." and ".." segments and empty
 * names (picomatch/lib/constants.js NO_DOTS_SLASH, NO_DOTS, NO_DOT_SLASH,
 * NO_DOT, ONE_CHAR). A walk never yields such a path (every segment is a
 * real entry name, and dotfiles match on purpose), so they can go; what is
 * left is a regular expression RE2 accepts.
 */
const WALK_GUARDS = ['(?!\\.{1,2}(?:\\/|$))', '(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '(?!\\.{0,1}(?:\\/|$))', '(?!\\.)', '(?=.)'];

/**
 * A glob of a model's (Glob's pattern, Grep's glob) as a matcher for the
 * walk's relative paths, in linear time. picomatch compiles globs to
 * backtracking RegExps: `*a*a*a*a*a*a*b` against one 60-character file name
 * takes seconds, and a few more stars hours, on the event loop where no tool
 * timeout can fire. The same expression runs on RE2 here. Globs whose only
 * translation needs a lookaround (a negated extglob `!(…)`) are refused.
 */
export function compileGlob(glob: string): (path: string) => boolean {
  // A leading "!" negates the whole glob, as in picomatch; "!(" starts an extglob.
  let negated = false;
  let rest = glob;
  while (rest.startsWith('!') && !rest.startsWith('!(')) {
    negated = !negated;
    rest = rest.slice(1);
  }
  let source: string;
  try {
    source = picomatch.makeRe(rest, { dot: true }).source;
  } catch (err) {
    throw invalid(glob, (err as Error).message);
  }
  for (const guard of WALK_GUARDS) source = source.split(guard).join('');
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (err) {
    const lookaround = /Perl syntax/.test((err as Error).message);
    throw invalid(glob, lookaround ? 'negated extglobs "!(…)" are not supported' : (err as Error).message);
  }
  return negated ? (path) => !re.test(path) : (path) => re.test(path);
}

function invalid(glob: string, why: string): GatewayError {
  return new GatewayError('INVALID_ARGS', {
    message: `The glob ${JSON.stringify(glob.length > 64 ? `${glob.slice(0, 64)}…` : glob)} cannot be used: ${why}.`,
    suggestion: 'Use *, **, ?, [abc] and {a,b}; to leave files out, narrow path instead.',
  });
}
