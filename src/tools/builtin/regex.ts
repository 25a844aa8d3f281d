import { GatewayError } from '../../protocol/errors.js';

/**
 * True when a quantified group itself holds an unbounded quantifier, as in
 * `(a+)+` or `(\w*\s?)*`: the shape that makes a backtracking engine take
 * exponential time on a line that almost matches. A heuristic (it misses
 * overlapping alternations like `(a|a)*`), but it catches the common case.
 */
export function hasNestedQuantifier(source: string): boolean {
  const groups: boolean[] = [];
  let inClass = false;
  let closedQuantifiedGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      closedQuantifiedGroup = false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    const unbounded = c === '*' || c === '+' || (c === '{' && /^\{\d+,/.test(source.slice(i, i + 12)));
    if (unbounded) {
      if (closedQuantifiedGroup) return true;
      if (groups.length > 0) groups[groups.length - 1] = true;
    } else if (c === ')') {
      closedQuantifiedGroup = groups.pop() ?? false;
      if (closedQuantifiedGroup && groups.length > 0) groups[groups.length - 1] = true;
      continue;
    } else if (c === '(') {
      groups.push(false);
    } else if (c === '[') {
      inClass = true;
    }
    closedQuantifiedGroup = false;
  }
  return false;
}

/** A Grep pattern as a JavaScript RegExp; INVALID_ARGS when it does not compile or risks runaway backtracking. */
export function compileSearchPattern(pattern: string, ignoreCase: boolean): RegExp {
  if (hasNestedQuantifier(pattern)) {
    throw new GatewayError('INVALID_ARGS', {
      message: `The pattern ${JSON.stringify(pattern)} nests repetition inside repetition, which can take exponential time.`,
      suggestion: 'Drop the outer or inner quantifier, e.g. "(ab)+" or "a+" instead of "(a+)+".',
    });
  }
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (err) {
    throw new GatewayError('INVALID_ARGS', {
      message: `The pattern is not a valid JavaScript regular expression: ${(err as Error).message}`,
      suggestion: 'Escape special characters such as ( [ { . * + ? with a backslash to match them literally.',
    });
  }
}
