import type { RE2JS } from 're2js';

/** Where a path pattern's matches lie, read from RE2's program (`^secrets/`, `^secret[s]/` alike), for the mounts. */
export interface PathShape {
  /** The literal text every match starts with, when anchored at the start (`^…`). */
  prefix?: string;
  /** The pattern matches `prefix` and nothing else (`^\.env$`). */
  exact: boolean;
}

/** RE2's instruction set (re2js `Inst`), as far as needed here. */
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
const BEGIN_LINE = 1;
const END_LINE = 2;
const BEGIN_TEXT = 4;
const END_TEXT = 8;
const WORD_BOUNDARY = 16;
const NO_WORD_BOUNDARY = 32;
const FOLD_CASE = 1;

interface Inst {
  op: number;
  out: number;
  arg: number;
  runes: ArrayLike<number>;
  matchRune(r: number): boolean;
}
interface Prog {
  inst: Inst[];
  start: number;
}

const progOf = (re: RE2JS): Prog => (re.re2Input as unknown as { prog: Prog }).prog;

const isWord = (r: number) => (r >= 48 && r <= 57) || (r >= 65 && r <= 90) || (r >= 97 && r <= 122) || r === 95;

/** The empty-width conditions between `prev` (-1: start of text) and `next` (undefined: not known yet). */
function context(prev: number, next: number | undefined): number {
  let flags = 0;
  if (prev < 0) flags |= BEGIN_TEXT | BEGIN_LINE;
  if (prev === 10) flags |= BEGIN_LINE;
  if (next === undefined) return flags;
  if (next === 10) flags |= END_LINE;
  flags |= isWord(prev) !== isWord(next) ? WORD_BOUNDARY : NO_WORD_BOUNDARY;
  return flags;
}

function skip(prog: Prog, pc: number): number {
  for (let inst = prog.inst[pc]!; inst.op === NOP || inst.op === CAPTURE; inst = prog.inst[pc]!) pc = inst.out;
  return pc;
}

export function pathShape(re: RE2JS): PathShape {
  const prog = progOf(re);
  let pc = skip(prog, prog.start);
  const first = prog.inst[pc]!;
  // `(?m)^` also matches after a newline, which a file name may hold: only `^` of the text anchors.
  if (first.op !== EMPTY_WIDTH || first.arg !== BEGIN_TEXT) return { exact: false };
  let prefix = '';
  for (pc = skip(prog, first.out); ; pc = skip(prog, prog.inst[pc]!.out)) {
    const inst = prog.inst[pc]!;
    const single = inst.op === RUNE1 || (inst.op === RUNE && inst.runes.length === 1 && (inst.arg & FOLD_CASE) === 0);
    if (!single) break;
    prefix += String.fromCodePoint(inst.runes[0]!);
  }
  const end = prog.inst[pc]!;
  const exact = end.op === EMPTY_WIDTH && end.arg === END_TEXT && prog.inst[skip(prog, end.out)]!.op === MATCH;
  return { prefix, exact };
}

/** Whether `re` matches every string starting with `text` (`dir/`: every path below). Sound, not complete. */
export function matchesEveryExtension(re: RE2JS, text: string): boolean {
  const prog = progOf(re);
  const runes = Array.from(text, (c) => c.codePointAt(0)!);
  let threads: number[] = [];
  for (let i = 0; i <= runes.length; i++) {
    // Unanchored, as a rule's test is.
    threads.push(prog.start);
    const flags = context(i === 0 ? -1 : runes[i - 1]!, runes[i]);
    const consuming: number[] = [];
    const seen = new Set<number>();
    const stack = threads;
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen.has(pc)) continue;
      seen.add(pc);
      const inst = prog.inst[pc]!;
      switch (inst.op) {
        case MATCH:
          return true;
        case ALT:
        case ALT_MATCH:
          stack.push(inst.out, inst.arg);
          break;
        case NOP:
        case CAPTURE:
          stack.push(inst.out);
          break;
        case EMPTY_WIDTH:
          if ((inst.arg & ~flags) === 0) stack.push(inst.out);
          break;
        case RUNE:
        case RUNE1:
        case RUNE_ANY:
        case RUNE_ANY_NOT_NL:
          consuming.push(pc);
          break;
        default:
          // FAIL (and lookbehind, never compiled for policy patterns).
          break;
      }
    }
    if (i === runes.length) break;
    const r = runes[i]!;
    threads = [];
    for (const pc of consuming) {
      const inst = prog.inst[pc]!;
      const takes =
        inst.op === RUNE_ANY || (inst.op === RUNE_ANY_NOT_NL ? r !== 10 : inst.op === RUNE1 ? inst.runes[0] === r : inst.matchRune(r));
      if (takes) threads.push(inst.out);
    }
  }
  return false;
}
