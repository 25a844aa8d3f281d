import type { Node } from 'mvdan-sh';
import { child, syntax, typeOf, type Parsed } from './parser.js';
import { allow, ask, deny, type Verdict } from './verdict.js';
import { literalValue } from './words.js';

const NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$/;

/** What arithmetic evaluates as a string of its own: a quoted word's value is read again as an expression (`$(( '$(cmd)' ))`). */
const EVALUATED: Record<string, string> = { ParamExp: '$', CmdSubst: '$(…)', ProcSubst: '<(…)', SglQuoted: "'…'", DblQuoted: '"…"' };

/** Arithmetic on anything but bare numbers is ASK: bash evaluates variables, subscripts and quoted strings in it, running `$(cmd)`. */
export function judgeArithmetic(node: Node): Verdict {
  let named: string | undefined;
  syntax.Walk(node, (n) => {
    if (!n || named) return false;
    const type = typeOf(n);
    if (EVALUATED[type]) named = EVALUATED[type];
    else if (type === 'Lit' && !NUMBER.test(n.Value as string) && n.Value !== '@' && n.Value !== '*') named = n.Value as string;
    return !named;
  });
  return named ? ask(`arithmetic on ${named}, whose value can hold a[$(cmd)] and run cmd`) : allow('arithmetic on numbers');
}

/** `${!x}` and named subscripts evaluate what a variable holds (ASK); `${x@P}` runs the commands in a value (DENY). */
export function judgeParamExp(node: Node, source: string): Verdict {
  if (/@P\}$/.test(source)) return deny('${…@P} expands a value as a prompt, running the commands in it');
  if (node.Excl) return ask('indirect expansion ${!…} evaluates the name a variable holds');
  for (const field of ['Index']) {
    const part = child(node, field);
    if (part) {
      const verdict = judgeArithmetic(part);
      if (verdict.decision !== 'allow') return verdict;
    }
  }
  const slice = child(node, 'Slice');
  if (slice) {
    for (const field of ['Offset', 'Length']) {
      const part = child(slice, field);
      if (part && judgeArithmetic(part).decision !== 'allow') return judgeArithmetic(part);
    }
  }
  return allow('expands a variable');
}

const ARITH_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** `[[ … ]]`: its arithmetic comparisons evaluate their operands, and -v evaluates a subscript. */
export function judgeTestClause(node: Node, parsed: Parsed): Verdict {
  let verdict = allow('tests');
  syntax.Walk(node, (n) => {
    if (!n || verdict.decision !== 'allow') return false;
    const type = typeOf(n);
    if (type === 'BinaryTest') {
      const x = child(n, 'X')!;
      const y = child(n, 'Y')!;
      const op = parsed.between(x.End().Offset(), y.Pos().Offset()).trim();
      const numeric = (w: Node) => typeOf(w) === 'Word' && NUMBER.test(literalValue(w) ?? '');
      if (ARITH_TESTS.has(op) && !(numeric(x) && numeric(y))) verdict = ask(`[[ … ${op} … ]] evaluates its operands as arithmetic`);
    } else if (type === 'UnaryTest') {
      const x = child(n, 'X')!;
      const op = parsed.between(n.Pos().Offset(), x.Pos().Offset()).trim();
      if (op === '-v' || op === '-R') verdict = ask(`[[ ${op} … ]] evaluates an array subscript`);
    }
    return true;
  });
  return verdict;
}
