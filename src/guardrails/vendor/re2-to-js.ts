/**
 * RE2 syntax (gitleaks' dialect) as a JavaScript RegExp with the same matches: inline flags spelt out per letter
 * (a pattern case-insensitive throughout takes `i`), `\z`/`\A`, POSIX classes and named groups translated. Anything
 * else RE2 spells differently is refused with the reason, so a rule never silently matches something else.
 */

interface JsPattern {
  source: string;
  flags: string;
}

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-/:-@[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const isLetter = (c: string) => /^[A-Za-z]$/.test(c);
const otherCase = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

interface Flags {
  i: boolean;
  s: boolean;
}

function setFlags(spec: string, flags: Flags): Flags {
  const out = { ...flags };
  let on = true;
  for (const c of spec) {
    if (c === '-') on = false;
    else if (c === 'i' || c === 's') out[c] = on;
    else throw new Error(`the flag (?${spec}) has no JavaScript equivalent`);
  }
  return out;
}

function translateClass(re: string, at: number, fold: boolean): { out: string; next: number } {
  let i = at + 1;
  let out = '[';
  if (re[i] === '^') {
    out += '^';
    i++;
  }
  const items: string[] = [];
  let first = true;
  while (i < re.length && (re[i] !== ']' || first)) {
    first = false;
    if (re.startsWith('[:', i)) {
      const end = re.indexOf(':]', i + 2);
      const name = end < 0 ? '' : re.slice(i + 2, end);
      const negated = name.startsWith('^');
      const set = POSIX[negated ? name.slice(1) : name];
      if (set === undefined || negated) throw new Error(`the class [:${name}:] has no translation`);
      items.push(set);
      i = end + 2;
      continue;
    }
    let lo: string;
    if (re[i] === '\\') {
      const escaped = re.slice(i, i + 2);
      if (/^\\[pPQE]/.test(escaped)) throw new Error(`the escape ${escaped} has no translation`);
      if (re[i + 1] === 'x' && re[i + 2] === '{') throw new Error('the escape \\x{…} has no translation');
      const hex = re[i + 1] === 'x' ? re.slice(i, i + 4) : escaped;
      i += hex.length;
      if (!/^\\[-\]\\^[/.+*?(){}|$]$/.test(hex)) {
        items.push(hex);
        continue;
      }
      lo = hex[1]!;
    } else {
      lo = re[i]!;
      i++;
    }
    let hi = lo;
    if (re[i] === '-' && re[i + 1] !== ']' && i + 1 < re.length) {
      hi = re[i + 1] === '\\' ? re[i + 2]! : re[i + 1]!;
      i += re[i + 1] === '\\' ? 3 : 2;
    }
    items.push(range(lo, hi));
    if (fold) items.push(...foldedRanges(lo, hi));
  }
  if (i >= re.length) throw new Error('a character class is not closed');
  return { out: `${out}${items.join('')}]`, next: i + 1 };
}

const esc = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
const range = (lo: string, hi: string) => (lo === hi ? esc(lo) : `${esc(lo)}-${esc(hi)}`);

function foldedRanges(lo: string, hi: string): string[] {
  const out: string[] = [];
  for (const [a, z] of [
    ['a', 'z'],
    ['A', 'Z'],
  ] as const) {
    const from = lo > a ? lo : a;
    const to = hi < z ? hi : z;
    if (from <= to) out.push(range(otherCase(from), otherCase(to)));
  }
  return out;
}

export function re2ToJs(re: string): JsPattern {
  const whole = re.startsWith('(?i)') && !/\(\?[a-z]*-[a-z]*i|\(\?[a-z-]*\)/.test(re.slice(4));
  const source = translate(whole ? re.slice(4) : re, { i: false, s: false });
  return { source, flags: whole ? 'i' : '' };
}

function translate(re: string, initial: Flags): string {
  const stack: Flags[] = [];
  let flags = initial;
  let out = '';
  let i = 0;
  while (i < re.length) {
    const c = re[i]!;
    if (c === '\\') {
      const next = re[i + 1];
      if (next === undefined) throw new Error('the pattern ends in a lone backslash');
      if (next === 'z') out += '$';
      else if (next === 'A') out += '^';
      else if ('pPQECZ'.includes(next) || (next === 'x' && re[i + 2] === '{')) throw new Error(`the escape \\${next} has no translation`);
      else if (next === 'x') {
        out += re.slice(i, i + 4);
        i += 4;
        continue;
      } else out += `\\${next}`;
      i += 2;
    } else if (c === '[') {
      const cls = translateClass(re, i, flags.i);
      out += cls.out;
      i = cls.next;
    } else if (c === '(') {
      const inline = /^\(\?([a-zA-Z-]*)\)/.exec(re.slice(i));
      const group = /^\(\?([a-zA-Z-]*):/.exec(re.slice(i));
      const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(re.slice(i));
      if (inline) {
        flags = setFlags(inline[1]!, flags);
        i += inline[0].length;
        continue;
      }
      stack.push(flags);
      if (group) {
        flags = setFlags(group[1]!, flags);
        out += '(?:';
        i += group[0].length;
      } else if (named) {
        out += '(';
        i += named[0].length;
      } else if (re[i + 1] === '?') throw new Error(`the group ${re.slice(i, i + 4)} has no translation`);
      else {
        out += '(';
        i++;
      }
    } else if (c === ')') {
      const outer = stack.pop();
      if (outer === undefined) throw new Error('a ) closes no group');
      flags = outer;
      out += ')';
      i++;
    } else if (c === '.') {
      out += flags.s ? '[\\s\\S]' : '[^\\n]';
      i++;
    } else {
      out += flags.i && isLetter(c) ? `[${c}${otherCase(c)}]` : c;
      i++;
    }
  }
  if (stack.length > 0) throw new Error('a group is not closed');
  return out;
}
