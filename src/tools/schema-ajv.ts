import { Ajv, type CodeOptions, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** ajv's RegExpEngine, which its main module does not export by name: a pattern and its flags to an object with `test`. */
type RegExpEngine = NonNullable<CodeOptions['regExp']>;

// ECMAScript's `\s` (WhiteSpace and LineTerminator), wider than RE2's ASCII one; written as the inside of a class.
const JS_SPACE = '\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
// ECMAScript's `.` without the `s` flag: anything but a line terminator (RE2's stops at `\n` only).
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/**
 * An ECMAScript pattern in RE2's syntax (re2js's translation: `\u` escapes, named groups, `[^]`), with `.` and `\s` given their
 * ECMAScript meaning. Inside a class `\S` keeps RE2's meaning (non-ASCII-space): the one place the two engines differ.
 */
function re2Syntax(pattern: string): string {
  const translated = RE2JS.translateRegExp(pattern);
  let out = '';
  let inClass = false;
  for (let i = 0; i < translated.length; i++) {
    const char = translated[i]!;
    if (char === '\\' && i + 1 < translated.length) {
      const next = translated[++i]!;
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += `\\${next}`;
      continue;
    }
    if (char === '[' && !inClass) {
      inClass = true;
      out += char;
      // A `]` first in a class (after a `^`) is a literal in RE2: copied as it is, it does not close the class.
      if (translated[i + 1] === '^') out += translated[++i];
      if (translated[i + 1] === ']') out += translated[++i];
      continue;
    }
    if (char === ']' && inClass) inClass = false;
    out += char === '.' && !inClass ? JS_DOT : char;
  }
  return out;
}

/**
 * ajv's regular-expression engine for tool schemas: `pattern` and `patternProperties` run on RE2 (re2js), in time linear in the
 * argument, so no pattern a schema brings can hold the event loop. Throws, as `new RegExp` does, for a pattern RE2 cannot run
 * (a look-around, a back-reference, a repeat count over 1000): ajv then reports the schema as not compiling.
 */
export const re2RegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    // ajv passes `u` (unicodeRegExp) or nothing; RE2 always reads code points.
    if (flags !== '' && flags !== 'u') throw new Error(`regular expression flags ${JSON.stringify(flags)} are not supported`);
    let re: RE2JS;
    try {
      re = RE2JS.compile(re2Syntax(pattern));
    } catch (err) {
      throw new Error(`pattern ${JSON.stringify(pattern)} is not run by the gateway's linear-time engine (RE2): ${(err as Error).message}`);
    }
    // ajv keys the compiled patterns of one schema by this text.
    const text = `/${pattern}/${flags}`;
    return { test: (input: string) => re.test(input), toString: () => text };
  },
  // What ajv's standalone code would call; toolgate never emits it.
  { code: 'toolgate.re2RegExp' },
);

/**
 * {@link re2RegExp} for an upstream's schema, which the upstream checks again itself: a pattern RE2 cannot run is not checked here
 * (every string matches it) rather than costing the whole tool; {@link unrunnablePatterns} names such patterns for the log.
 */
export const upstreamRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      return re2RegExp(pattern, flags);
    } catch {
      return { test: () => true, toString: () => `/${pattern}/${flags} (unchecked)` };
    }
  },
  { code: 'toolgate.upstreamRegExp' },
);

/** The `pattern`s and `patternProperties` names of a schema, at any depth, that RE2 cannot run. */
export function unrunnablePatterns(schema: unknown): string[] {
  const found = new Set<string>();
  const runs = (pattern: string) => {
    try {
      re2RegExp(pattern, 'u');
      return true;
    } catch {
      return false;
    }
  };
  const stack = [schema];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else {
      const record = node as Record<string, unknown>;
      if (typeof record.pattern === 'string' && !runs(record.pattern)) found.add(record.pattern);
      const named = record.patternProperties;
      if (typeof named === 'object' && named !== null) for (const key of Object.keys(named)) if (!runs(key)) found.add(key);
      stack.push(...Object.values(record));
    }
  }
  return [...found];
}

/**
 * The ajv every tool schema is compiled with, in the registry and in an OpenAPI load alike, so both reach the same verdict: all errors,
 * formats, RE2 patterns. `logger`: where ajv's warnings (an unknown format) go. `regExp`: {@link upstreamRegExp} for upstreams' tools.
 */
export function createSchemaAjv(logger: Options['logger'], regExp: RegExpEngine = re2RegExp): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, logger, code: { regExp } });
  addFormats(ajv);
  return ajv;
}
