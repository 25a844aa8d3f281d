import type { Node } from 'mvdan-sh';
import { list, typeOf } from './parser.js';

/** A word's value once the shell removed its quotes (`'r''m'`, `\rm`, `$'\x72m'` are `rm`); undefined when only the run time knows it. */
export function literalValue(word: Node): string | undefined {
  let value = '';
  const parts = list(word, 'Parts');
  for (const [i, part] of parts.entries()) {
    const piece = partValue(part, i === 0, i === parts.length - 1);
    if (piece === undefined) return undefined;
    value += piece;
  }
  return value;
}

function partValue(part: Node, first: boolean, last: boolean): string | undefined {
  switch (typeOf(part)) {
    case 'Lit':
      return unquotedLit(part.Value as string, first, last);
    case 'SglQuoted':
      return part.Dollar ? ansiC(part.Value as string) : (part.Value as string);
    case 'DblQuoted': {
      if (part.Dollar) return undefined;
      let value = '';
      for (const inner of list(part, 'Parts')) {
        if (typeOf(inner) !== 'Lit') return undefined;
        value += (inner.Value as string).replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
      }
      return value;
    }
    default:
      return undefined;
  }
}

/** An unquoted literal: a backslash escapes the next character; an unescaped glob, brace or leading tilde is an expansion. */
function unquotedLit(raw: string, first: boolean, last: boolean): string | undefined {
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\') {
      const next = raw[++i];
      if (next !== undefined && next !== '\n') value += next;
      continue;
    }
    if ('*?{'.includes(c) || (c === '~' && first && i === 0)) return undefined;
    if (c === '[' && (!last || raw.includes(']', i))) return undefined;
    value += c;
  }
  return value;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The value of `$'…'` (bash's ANSI-C quoting); undefined for what it cannot decode with certainty (\c, a NUL, non-ASCII escapes). */
function ansiC(raw: string): string | undefined {
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = raw[++i];
    if (next === undefined) return undefined;
    if (SIMPLE_ESCAPES[next] !== undefined) {
      value += SIMPLE_ESCAPES[next];
      continue;
    }
    const forms: Array<[RegExp, number]> = [
      [/^[0-7]{1,3}/, 8],
      [/^x[0-9a-fA-F]{1,2}/, 16],
      [/^u[0-9a-fA-F]{1,4}/, 16],
      [/^U[0-9a-fA-F]{1,8}/, 16],
    ];
    const rest = raw.slice(i);
    const form = forms.find(([re]) => re.test(rest));
    if (!form) {
      if (next === 'c') return undefined;
      value += `\\${next}`;
      continue;
    }
    const digits = rest.match(form[0])![0];
    const code = parseInt(form[1] === 8 ? digits : digits.slice(1), form[1]);
    // A NUL ends the word; a byte or code point past ASCII depends on the locale: spelled as written, never guessed.
    if (code === 0 || code > 0x7f) return undefined;
    value += String.fromCodePoint(code);
    i += digits.length - 1;
  }
  return value;
}

/** Characters a word may hold and still be written bare; `=` only after the command name, where it cannot start an assignment. */
const BARE = /^[A-Za-z0-9_/.,:+@%-]+$/;
const BARE_ARG = /^[A-Za-z0-9_/.,:+@%=-]+$/;

/** Words bash reads as syntax where a command name stands: quoted there, they stay names. */
const RESERVED = new Set('if then else elif fi do done case esac while until for in function select time coproc'.split(' '));

/** A value written as the shell reads it back as one word: bare where that is safe, else in single quotes. */
export function shellQuote(value: string, commandName = false): string {
  if (commandName ? BARE.test(value) && !RESERVED.has(value) : BARE_ARG.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
