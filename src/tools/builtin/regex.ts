import { RE2JS } from 're2js';
import { GatewayError } from '../../protocol/errors.js';

/** What Grep needs of a compiled pattern. */
export interface LinePattern {
  test(line: string): boolean;
}

/**
 * A Grep pattern compiled for RE2's linear-time engine. Patterns come from models, and a backtracking engine (JavaScript's RegExp) can
 * spend exponential time on one line, blocking every request of the process where no timeout can fire. RE2 syntax is JavaScript's without
 * lookaround and backreferences, as in ripgrep.
 */
export function compileSearchPattern(pattern: string, ignoreCase: boolean): LinePattern {
  try {
    return RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new GatewayError('INVALID_ARGS', {
      message: `The pattern is not a valid regular expression: ${(err as Error).message}`,
      suggestion:
        'Use RE2 syntax (no lookaround or backreferences); escape special characters such as ( [ { . * + ? with a backslash to match them literally.',
    });
  }
}
