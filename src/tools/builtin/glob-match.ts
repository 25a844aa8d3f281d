import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import { GatewayError } from '../../protocol/errors.js';

/** picomatch's lookarounds against "." and ".." segments and empty names: a walk never yields such a path, and RE2 has no lookaround. */
const WALK_GUARDS = ['(?!\\.{1,2}(?:\\/|$))', '(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '(?!\\.{0,1}(?:\\/|$))', '(?!\\.)', '(?=.)'];

/**
 * A model's glob as a linear-time matcher of the walk's relative paths: picomatch's backtracking RegExp can take hours on one name, where no
 * timeout fires, so the same expression runs on RE2. A glob that needs a lookaround (a negated extglob `!(…)`) is refused.
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
