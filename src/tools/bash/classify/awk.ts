import { skipOptions, type Arg } from './options.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

/** gawk's options that write a file (pretty-print, profile, dump-variables) or start its debugger: read as flags, and ASK. */
const WRITES_A_FILE = ['-o', '--pretty-print', '-p', '--profile', '-d', '--dump-variables', '-D', '--debug'];

/** awk: ALLOW for programs that print; running a program DENY, writing a file or reading a program from one ASK (docs/bash.md). */
export function judgeAwk(args: readonly Arg[]): Verdict {
  if (args.some((a) => /^(-l|--lo)/.test(a.value ?? '')))
    return deny('awk -l/--load loads a shared library, code the classifier cannot see');
  const { rest, taken, verdict, unread } = skipOptions('awk', args, {
    flags: [
      '-b',
      '--characters-as-bytes',
      '-c',
      '--traditional',
      '-P',
      '--posix',
      '-S',
      '--sandbox',
      '-M',
      '--bignum',
      '-N',
      '--use-lc-numeric',
      '-r',
      '--re-interval',
      '-s',
      '--no-optimize',
      '-O',
      '--optimize',
      ...WRITES_A_FILE,
    ],
    valued: ['-F', '-v', '--field-separator', '--assign', '-e', '--source'],
    risky: ['-f', '--file', '-i', '--include', '-E', '--exec', ...WRITES_A_FILE],
  });
  // Past an option it does not know, any later word could be the program.
  if (unread) return unread.reduce((acc, a) => (a.value === undefined ? acc : worst(acc, judgeAwkProgram(a.value))), verdict!);
  const programs = taken.filter((t) => t.option === '-e' || t.option === '--source').map((t) => t.value);
  if (programs.length === 0) {
    if (verdict) return verdict;
    if (rest.length === 0) return ask('awk without a program');
    programs.push(rest[0]!.value);
  }
  let judged = verdict ?? allow('awk prints');
  for (const program of programs)
    judged = worst(judged, program === undefined ? ask('the awk program is computed at run time') : judgeAwkProgram(program));
  return judged;
}

/** Words after which a `/` starts a regular expression, not a division. */
// Not getline: `getline / 2` divides.
const KEYWORDS = new Set('print printf return in if while for do else case delete exit'.split(' '));

/**
 * What runs, writes or connects, looked for in the whole text when the tokens cannot be trusted: `system`, a lone `|`, `@`, `>`,
 * ENVIRON, getline (`< "/inet/…"`).
 */
const HAZARD = /\bsystem\b|(^|[^|])\|(?!\|)|@|>|\bENVIRON\b|\bgetline\b|\/inet/;

/**
 * Reads an awk program token by token for what runs a program or writes a file; what it cannot read is ASK. With any `/` in the code (a
 * regular expression or a division), a hazard the tokens put in a literal still counts.
 */
function judgeAwkProgram(source: string): Verdict {
  const src = source.replace(/\\\r?\n/g, ' ');
  const { verdict, slash } = readAwk(src);
  if (slash && verdict.decision !== 'deny' && /\bsystem\s*\(/.test(src))
    return deny('the awk program may run a shell (system), past a / the classifier cannot place');
  if (slash && verdict.decision === 'allow' && HAZARD.test(src)) {
    return ask('the awk program has a / that may start a regular expression or divide, and text that could run a program or write a file');
  }
  return verdict;
}

function readAwk(src: string): { verdict: Verdict; slash: boolean } {
  const done = (v: Verdict) => ({ verdict: v, slash });
  let verdict = allow('awk prints');
  let slash = false;
  let operand = false;
  let depth = 0;
  for (let i = 0; i < src.length;) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (/\s/.test(c)) {
      if (c === '\n') operand = false;
      i++;
    } else if (c === '"' || (c === '/' && !operand)) {
      slash ||= c === '/';
      const end = skipLiteral(src, i);
      if (end === undefined) return done(ask('the awk program has a string or regular expression the classifier cannot read to its end'));
      i = end;
      operand = true;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))![0];
      i += word.length;
      if (word === 'system') return done(deny('the awk program runs a shell (system)'));
      if (word === 'getline') {
        const read = getlineFile(src, i);
        if (read.decision !== 'allow') verdict = worst(verdict, read);
        if (read.decision === 'deny') return done(read);
      }
      if (word === 'ENVIRON') verdict = worst(verdict, ask('the awk program reads ENVIRON'));
      operand = !KEYWORDS.has(word);
    } else if (c === '@') {
      if (!/^@(include|namespace)\b/.test(src.slice(i))) return done(deny('gawk @load and indirect calls (@f()) can run a shell'));
      verdict = worst(verdict, ask('gawk @include reads a program from a file'));
      i++;
    } else if (c === '|') {
      if (next !== '|') return done(deny(`the awk program runs a command (${next === '&' ? '|& coprocess' : '| pipe'})`));
      i += 2;
      operand = false;
    } else if (c === '>') {
      // Inside parentheses `>` compares; outside it may redirect print's output.
      if (depth === 0 && next !== '=') verdict = worst(verdict, ask('the awk program may write a file (print > file)'));
      i += next === '>' || next === '=' ? 2 : 1;
      operand = false;
    } else if ((c === '+' || c === '-') && next === c && operand) {
      i += 2;
    } else {
      slash ||= c === '/';
      if (c === '(') depth++;
      if (c === ')') depth = Math.max(0, depth - 1);
      operand = /[0-9.)\]]/.test(c);
      // A number ends where its digits do: `1system(…)` is 1 then system (awk concatenates them).
      const number = /[0-9.]/.test(c) ? NUMBER.exec(src.slice(i)) : null;
      i += number ? number[0].length : 1;
    }
  }
  return { verdict, slash };
}

/** An awk number: hexadecimal (gawk), or digits with a fraction and an exponent. */
const NUMBER = /^(0[xX][0-9a-fA-F]+|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)/;

/** What `getline` after `at` reads: a `/inet/…` file (a network connection) is DENY, a file named at run time ASK. */
function getlineFile(src: string, at: number): Verdict {
  const rest = src.slice(at).replace(/^[ \t]*[A-Za-z_$][A-Za-z0-9_]*(\[[^\]]*\])?/, '');
  const redirect = /^[ \t]*<(?!=)[ \t]*/.exec(rest);
  if (!redirect) return allow('getline reads its input');
  const file = rest.slice(redirect[0].length);
  const end = file.startsWith('"') ? skipLiteral(file, 0) : undefined;
  if (end === undefined || !/^[ \t]*($|[;})\n]|&&|\|\|)/.test(file.slice(end)))
    return ask('getline < reads a file named at run time, which may be a gawk /inet/ network connection');
  if (/^"\/inet[46]?\//.test(file)) return deny('getline < "/inet/…" opens a network connection (gawk)');
  return allow('getline reads a file');
}

/**
 * The end of the string or regular expression at `start`: escapes skipped, a regular expression's `[…]` may hold `/`; undefined if a line
 * or the program ends first.
 */
function skipLiteral(src: string, start: number): number | undefined {
  const quote = src[start]!;
  let bracket = false;
  for (let i = start + 1; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') i++;
    else if (c === '\n') return undefined;
    else if (quote === '/' && c === '[') bracket = true;
    else if (quote === '/' && c === ']') bracket = false;
    else if (c === quote && !bracket) return i + 1;
  }
  return undefined;
}
