import { RE2JS, RE2JSSyntaxException } from 're2js';

/** What RE2 is missing that JavaScript has, said only when the pattern uses it. */
const UNSUPPORTED = 'lookaround/backreferences are not supported (RE2)';

/** RE2's parse error (Go regexp/syntax's wording) and the piece it stopped at, as what is wrong and what to write instead. */
function explain(code: string, piece: string | null): string {
  // Quoted as written: JSON quoting would double every backslash of the pattern.
  const at = piece ? ` "${piece}"` : '';
  const workaround = 'match the text itself, or use one rule per case';
  switch (code) {
    case 'missing closing )':
      return 'missing closing ")"; close every group, or write \\( for a literal parenthesis';
    case 'unexpected )':
      return 'a ")" that closes no group; remove it, or write \\) for a literal parenthesis';
    case 'missing closing ]':
      return 'missing closing "]" of a character class; close it, or write \\[ for a literal bracket';
    case 'trailing backslash at end of expression':
      return 'ends in a lone backslash; write \\\\ for a literal backslash';
    case 'invalid escape sequence':
      if (piece && /^\\[1-9k]/.test(piece)) return `backreference${at}: ${UNSUPPORTED}; ${workaround}`;
      return `invalid escape${at}; write the character itself, \\\\ for a backslash, or \\x{41} for a code point`;
    case 'invalid or unsupported Perl syntax':
      if (piece === '(?=' || piece === '(?!') return `lookahead${at}: ${UNSUPPORTED}; ${workaround}`;
      return `unknown group syntax${at}; RE2 takes (?:…), (?P<name>…), (?<name>…) and the flags (?i), (?m), (?s), (?U)`;
    case 'invalid named capture':
      if (piece && /^\(\?<[=!]/.test(piece)) return `lookbehind "${piece.slice(0, 4)}": ${UNSUPPORTED}; ${workaround}`;
      return `invalid group name${at}; write (?P<name>…) or (?<name>…) with a name of letters, digits and _`;
    case 'duplicate capture group name':
      return `the group name${at} is used twice; rename one`;
    case 'missing argument to repetition operator':
      return `${piece ? `"${piece}"` : 'a repetition'} has nothing to repeat; put it after a character or group, or escape it (e.g. \\*) to match it literally`;
    case 'invalid nested repetition operator':
      return `a repetition of a repetition${at}; group the first, as in (a*)*, or remove one`;
    case 'invalid repeat count':
      return `invalid repeat count${at}; counts go up to 1000 and the minimum may not exceed the maximum`;
    case 'invalid character class range':
      if (piece && /^\\[pP]/.test(piece)) return `unknown Unicode class${at}; use one RE2 knows, such as \\p{L} or \\p{Greek}`;
      return `the character range${at} runs backwards; write the lower character first, or put "-" last for a literal dash`;
    case 'expression nests too deeply':
    case 'expression too large':
      return `${code}; split it into simpler patterns`;
    default:
      return `${code}${at}`;
  }
}

/** A rule's argument pattern, for RE2 (linear time on what a model wrote); throws saying what is wrong and what to write. */
export function compilePolicyPattern(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    if (!(err instanceof RE2JSSyntaxException)) throw err;
    throw new Error(explain(err.error ?? err.message, err.input ?? null));
  }
}

export function patternProblem(pattern: string): string | undefined {
  try {
    compilePolicyPattern(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
