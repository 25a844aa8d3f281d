import { re2RegExp } from '../schema-ajv.js';

/** A `pattern` as ajv runs it (ECMAScript with the `u` flag, matched by RE2), and what was done to make it so. */
interface UnicodePattern {
  /** Absent: the pattern is dropped, no ECMAScript `u` form of it was found. */
  pattern?: string;
  /** Present when the pattern was rewritten or dropped. */
  note?: string;
}

// Escapes kept as written: syntax characters and `/` (escaped under `u` too) and every letter or digit (a class, an anchor, a
// back-reference; one ECMAScript lacks, such as `\Z`, means something in the engine it was written for, so the pattern is dropped).
const KEPT_ESCAPE = /[\^$\\.*+?()[\]{}|/A-Za-z0-9]/;

const ecmaScript = (pattern: string, flags: string) => new RegExp(pattern, flags);

/** `engine` takes it under the `u` flag; RE2 ({@link re2RegExp}) has no look-around, back-reference or repeat count over 1000. */
function compiles(pattern: string, engine: (pattern: string, flags: string) => unknown = ecmaScript): boolean {
  try {
    engine(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** `\:`, `\_`, `\@` and the like (punctuation escaped for nothing, which other engines take) without their needless backslash. */
function withoutNeedlessEscapes(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      // `\-` is a hyphen inside a class under `u` (dropping it would make a range), and a plain `-` outside one.
      out += KEPT_ESCAPE.test(next) || (next === '-' && inClass) ? `\\${next}` : next;
      continue;
    }
    if (char === '[' && !inClass) inClass = true;
    else if (char === ']' && inClass) inClass = false;
    out += char;
  }
  return out;
}

/**
 * ajv compiles every `pattern` with the `u` flag, where an identity escape such as `\:` is a syntax error. A pattern that does not compile
 * so is rewritten without its needless escapes (same meaning), or dropped when that does not compile either; one RE2 cannot run (the
 * gateway never runs a backtracking pattern on an argument) is dropped too, and the upstream is left to check it. The note says which.
 */
export function unicodePattern(pattern: string): UnicodePattern {
  let kept: UnicodePattern = { pattern };
  if (!compiles(pattern)) {
    const rewritten = withoutNeedlessEscapes(pattern);
    if (rewritten === pattern || !compiles(rewritten)) {
      return { note: `pattern ${JSON.stringify(pattern)} dropped: it is not an ECMAScript regular expression under the u flag` };
    }
    kept = { pattern: rewritten, note: `pattern ${JSON.stringify(pattern)} rewritten as ${JSON.stringify(rewritten)} (needless escapes are errors under ECMAScript's u flag)` };
  }
  if (compiles(kept.pattern!, re2RegExp)) return kept;
  return { note: `pattern ${JSON.stringify(pattern)} dropped: the gateway checks patterns with RE2, which has no look-around or back-reference` };
}
