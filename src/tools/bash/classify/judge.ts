import type { Node } from 'mvdan-sh';
import { judgeArgv } from './commands.js';
import { judgeCore } from './core.js';
import { outsideBySpelling, type CoreNeeds, type Tier } from './inside.js';
import { judgeArithmetic, judgeParamExp, judgeTestClause } from './expansions.js';
import { judgeProcPath } from './proc.js';
import { child, list, parseBash, syntax, typeOf, type Parsed } from './parser.js';
import { judgeRedirect } from './redirects.js';
import { dangerousVariable } from './variables.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';
import { literalValue, shellQuote } from './words.js';

/** One judged part of a command: a simple command with its redirections, or a construct judged on its own. */
interface Unit {
  /** The part as policy rules see it: canonical words (quotes removed, re-quoted only where needed), single-spaced. */
  text: string;
  verdict: Verdict;
  /** In the none tier, what is checked on disk before the verdict holds (see checks.ts). */
  needs?: CoreNeeds;
}

/** A parsed command's classification. */
export interface Classified {
  /** Every simple command (in pipelines, lists, subshells, substitutions, functions, here-documents …) and risky construct. */
  units: Unit[];
  /** The most restrictive unit's verdict: the command's class. */
  verdict: Verdict;
  /** The command with every simple command written canonically: what approvals are bound to. */
  canonical: string;
}

/** Node types that only hold other nodes: nothing to judge in themselves. */
const STRUCTURE = new Set(
  (
    'File Stmt Word Lit SglQuoted DblQuoted CmdSubst ProcSubst Subshell Block BinaryCmd IfClause WhileClause ForClause WordIter ' +
    'CaseClause CaseItem FuncDecl TimeClause CoprocClause ExtGlob Comment BinaryArithm UnaryArithm ParenArithm BinaryTest ' +
    'UnaryTest ParenTest ArrayExpr ArrayElem Expansion Slice Replace Redirect CallExpr'
  ).split(' '),
);

/** The longest command classified: parsing is slow per syntax node, on the event loop; a file's content belongs in Write. */
export const MAX_CLASSIFIED_CHARS = 10_000;

/** How deep the syntax tree may nest, well inside the stack the parser's walk needs. */
export const MAX_DEPTH = 256;

/** Why a command is not classified (DENY at the gate). */
export interface Unclassified {
  problem: string;
}

/** The last commands classified: the gate classifies the command as sent and its canonical spelling, and canonicalArgs the first again. */
const recent = new Map<string, Classified | Unclassified>();
const RECENT_MAX = 64;

class TooDeep extends Error {}

/** Classifies a shell command; Unclassified (DENY) when bash cannot parse it, or it is too long or nests too deep. */
export function classifyCommand(command: string, tier: Tier = 'sandbox'): Classified | Unclassified {
  if (command.length > MAX_CLASSIFIED_CHARS) {
    return { problem: `the command is ${command.length} characters long, over the ${MAX_CLASSIFIED_CHARS} the classifier reads` };
  }
  const key = `${tier}\0${command}`;
  const known = recent.get(key);
  if (known) return known;
  let classified: Classified | Unclassified;
  try {
    classified = classifyParsed(command, tier);
  } catch (err) {
    const deep = err instanceof TooDeep || err instanceof RangeError;
    classified = {
      problem: deep
        ? `the command nests deeper than the ${MAX_DEPTH} levels the classifier reads`
        : `the classifier failed: ${String(err)}`,
    };
  }
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
  recent.set(key, classified);
  return classified;
}

function classifyParsed(command: string, tier: Tier): Classified | Unclassified {
  const parsed = parseBash(command);
  if ('problem' in parsed) return { problem: `bash cannot parse the command: ${parsed.problem}` };
  const units: Unit[] = [];
  const walk: Walk = { rewrites: [], prefixes: new Set(), tier, loops: 0 };
  let depth = 0;
  const open: string[] = [];
  syntax.Walk(parsed.file, (node) => {
    if (!node) {
      depth--;
      if (LOOPS.has(open.pop()!)) walk.loops--;
      return true;
    }
    if (++depth > MAX_DEPTH) throw new TooDeep();
    const type = typeOf(node);
    open.push(type);
    if (LOOPS.has(type)) walk.loops++;
    const judged = judgeNode(type, node, parsed, walk);
    if (judged) units.push(...judged);
    else if (!STRUCTURE.has(type))
      units.push({ text: parsed.source(node), verdict: ask(`a shell construct the classifier does not know (${type})`) });
    return true;
  });
  if (tier === 'none') fromRootOnly(units);
  const verdict = units.reduce((acc, u) => worst(acc, u.verdict), allow('nothing runs'));
  return { units, verdict, canonical: rewrite(command, parsed, walk.rewrites) };
}

/** What the walk gathers as it goes: the canonical rewrites, and where the assignments before a command start. */
interface Walk {
  rewrites: Array<{ from: number; to: number; text: string }>;
  prefixes: Set<number>;
  tier: Tier;
  /** How many loops or function bodies the node being judged is inside. */
  loops: number;
}

/**
 * Loops (`for`, `select`, `while`, `until`, `for ((…))`) and functions (called any number of times, under any name: `true() { cd d; };
 * true; true`): what their body does, it may do again from where it left off.
 */
const LOOPS = new Set(['ForClause', 'WhileClause', 'CStyleLoop', 'FuncDecl']);

/** Without a sandbox git runs only on the workspace's own repository, from its root: not after a cd anywhere in the command. */
function fromRootOnly(units: Unit[]): void {
  if (!units.some((u) => u.needs?.cd !== undefined)) return;
  for (const unit of units) {
    if (unit.needs?.git)
      unit.verdict = worst(unit.verdict, ask('without a sandbox, git runs only from the workspace root, not after a cd'));
  }
}

function judgeNode(type: string, node: Node, parsed: Parsed, walk: Walk): Unit[] | undefined {
  const { prefixes } = walk;
  switch (type) {
    case 'Stmt':
      return judgeStmt(node, parsed, walk);
    case 'Assign': {
      const name = child(node, 'Name')?.Value as string | undefined;
      // IFS before a command only splits inside that command (`IFS= read -r line`); set on its own, it re-splits every later word.
      const prefix = name === 'IFS' && prefixes.has(node.Pos().Offset());
      const verdict =
        (name && !prefix && dangerousVariable(name)) ||
        (child(node, 'Index') ? ask('an array subscript is evaluated as arithmetic') : undefined);
      return verdict ? [{ text: parsed.source(node), verdict }] : [];
    }
    case 'WordIter': {
      const verdict = dangerousVariable(child(node, 'Name')?.Value as string);
      return verdict ? [{ text: parsed.source(node), verdict }] : [];
    }
    case 'DeclClause':
      return [{ text: parsed.source(node), verdict: judgeDecl(node) }];
    case 'LetClause':
      return [{ text: parsed.source(node), verdict: ask('let evaluates arithmetic, where a variable holding a[$(cmd)] runs cmd') }];
    case 'ArithmExp':
    case 'ArithmCmd':
    case 'CStyleLoop':
      return [{ text: parsed.source(node), verdict: judgeArithmetic(node) }];
    case 'ParamExp': {
      const verdict = judgeParamExp(node, parsed.source(node));
      return verdict.decision === 'allow' ? [] : [{ text: parsed.source(node), verdict }];
    }
    case 'Word': {
      // Any word may be a path a program reads, whatever the program (cat, awk's getline, grep -r), or one a variable or loop carries
      // there.
      const value = literalValue(node);
      const verdict = judgeProcPath(value ?? parsed.source(node), value === undefined);
      return verdict ? [{ text: parsed.source(node), verdict }] : undefined;
    }
    case 'TestClause':
      return [{ text: parsed.source(node), verdict: judgeTestClause(node, parsed) }];
    default:
      return undefined;
  }
}

/**
 * A statement: its simple command with the statement's redirections as one unit; a statement of another kind gives each redirection its
 * own.
 */
function judgeStmt(stmt: Node, parsed: Parsed, { rewrites, prefixes, tier, loops }: Walk): Unit[] {
  const cmd = child(stmt, 'Cmd');
  const redirects = list(stmt, 'Redirs').map((r) => judgeRedirect(r, parsed));
  const needs: CoreNeeds = { paths: [] };
  if (tier === 'none') {
    for (const r of redirects) {
      if (r.reads === undefined) continue;
      const outside = outsideBySpelling(r.reads);
      if (outside && !/^\/dev\/(null|stdin)$/.test(r.reads))
        r.verdict = worst(r.verdict, ask(`without a sandbox, a redirection reads only inside the workspace: ${outside}`));
      else needs.paths.push(r.reads);
    }
  }
  if (!cmd || typeOf(cmd) !== 'CallExpr') return redirects.map((r) => ({ text: r.text, verdict: r.verdict, needs }));
  const words = list(cmd, 'Args');
  const assigns = list(cmd, 'Assigns');
  if (words.length > 0) for (const assign of assigns) prefixes.add(assign.Pos().Offset());
  const values = words.map(literalValue);
  const spelled = words.map((w, i) => (values[i] === undefined ? parsed.source(w) : shellQuote(values[i]!, i === 0)));
  const call = [...assigns.map((a) => parsed.source(a)), ...spelled].join(' ');
  const from = cmd.Pos().Offset();
  const to = cmd.End().Offset();
  if (!list(stmt, 'Redirs').some((r) => r.Pos().Offset() < to && r.Pos().Offset() > from)) rewrites.push({ from, to, text: call });
  // A word that is one process substitution is a /dev/fd path, never an option (what runs inside is judged on its own).
  const procSubst = (w: Node) => {
    const parts = list(w, 'Parts');
    return parts.length === 1 && typeOf(parts[0]!) === 'ProcSubst';
  };
  let verdict = judgeArgv(
    values.map((value, i) =>
      value !== undefined ? { value } : i > 0 && procSubst(words[i]!) ? { value: '/dev/fd/63' } : { value, source: spelled[i] },
    ),
  );
  // `LC_ALL=x grep`, `GCONV_PATH=./gc git log`: a variable set for one command changes what the program does.
  if (words.length > 0 && assigns.length > 0) verdict = worst(verdict, ask('a variable set before the command changes what it does'));
  if (tier === 'none' && words.length > 0) {
    const core = judgeCore(
      values.map((value, i) =>
        value !== undefined ? { value } : i > 0 && procSubst(words[i]!) ? { value: '/dev/fd/63' } : { value, source: spelled[i] },
      ),
      words.map(quotedOnly),
    );
    // Both ALLOW: the core's reason says why without a sandbox.
    verdict = verdict.decision === 'allow' && core.verdict.decision === 'allow' ? core.verdict : worst(verdict, core.verdict);
    needs.paths.push(...core.needs.paths);
    if (core.needs.cd !== undefined) needs.cd = core.needs.cd;
    // The on-disk check follows each cd once: in a loop `cd d` goes down again on every pass (d/d/…, through links it never saw).
    if (core.needs.cd !== undefined && loops > 0)
      verdict = worst(verdict, ask('without a sandbox, a cd inside a loop or function may go down again on every pass or call'));
    if (core.needs.git) needs.git = true;
    if (core.needs.walks) needs.walks = true;
    if (core.needs.files) needs.files = core.needs.files;
  }
  for (const r of redirects) verdict = worst(verdict, r.verdict);
  return [{ text: [call, ...redirects.map((r) => r.text)].join(' '), verdict, needs }];
}

/** A word made only of quoted parts: the shell neither splits nor globs it, so an expansion in it stays one string. */
const quotedOnly = (word: Node) => list(word, 'Parts').every((part) => ['SglQuoted', 'DblQuoted'].includes(typeOf(part)));

/**
 * declare/local/export/readonly/typeset set variables: outside the harmless
 * builtins, so ASK; -i and -n make later assignments arithmetic or indirect;
 * a quoted `'PS4=$(cmd)'` sets PS4 as a bare one does, DENY like it (see
 * dangerousVariable); a name computed at run time can be `a[$(cmd)]`.
 */
function judgeDecl(node: Node): Verdict {
  const variant = (child(node, 'Variant')?.Value as string) ?? 'declare';
  let verdict = ask(`${variant} sets shell variables, outside the harmless builtins`);
  for (const arg of list(node, 'Args')) {
    const word = child(arg, 'Value');
    if (!arg.Naked || !word) continue;
    const value = literalValue(word);
    if (value === undefined) return deny(`an argument of ${variant} is computed at run time`);
    if (/^[-+][a-zA-Z]*[in]/.test(value)) verdict = worst(verdict, ask(`${value} makes assignments arithmetic or indirect`));
    const danger = value.startsWith('-') ? undefined : dangerousVariable(value.split(/[=[]/)[0]!);
    if (danger) return danger;
  }
  return verdict;
}

/** The source with each simple command replaced by its canonical spelling (outermost first; nested ones stay as written inside it). */
function rewrite(command: string, parsed: Parsed, rewrites: Walk['rewrites']): string {
  const kept: typeof rewrites = [];
  for (const r of [...rewrites].sort((a, b) => a.from - b.from || b.to - a.to)) {
    const last = kept.at(-1);
    if (!last || r.from >= last.to) kept.push(r);
  }
  const end = Buffer.byteLength(command, 'utf8');
  let out = '';
  let at = 0;
  for (const r of kept) {
    out += parsed.between(at, r.from) + r.text;
    at = r.to;
  }
  return (out + parsed.between(at, end)).trim();
}
