import { createRequire } from 'node:module';
import type sh from 'mvdan-sh';
import type { Node, Parser } from 'mvdan-sh';

type Sh = typeof sh;

/** mvdan-sh, loaded once, with the `Error.stackTraceLimit` and `global.require` its runtime changes put back. */
function load(): Sh {
  const limit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, 'require');
  try {
    return createRequire(import.meta.url)('mvdan-sh') as Sh;
  } finally {
    Error.stackTraceLimit = limit;
    if (!hadRequire) delete (globalThis as { require?: unknown }).require;
  }
}

export const syntax = load().syntax;
const parser: Parser = syntax.NewParser(syntax.Variant(syntax.LangBash));

/** A parsed command: its syntax tree and the source it came from, to quote nodes as written. */
export interface Parsed {
  file: Node;
  /** The source text of a node as written (offsets are UTF-8 byte offsets into the source). */
  source(node: Node): string;
  /** The source text between two byte offsets. */
  between(from: number, to: number): string;
}

/** Parses `command` as bash; what is wrong with it (mvdan/sh's message, "line:column: …") when it does not parse. */
export function parseBash(command: string): Parsed | { problem: string } {
  let file: Node;
  try {
    file = parser.Parse(command, '');
  } catch (err) {
    // The parser's recursion overflowing the stack: the caller reports it as too deep.
    if (err instanceof RangeError) throw err;
    const go = err as { Error?: () => string } | null;
    return { problem: typeof go?.Error === 'function' ? go.Error() : String(err) };
  }
  const bytes = Buffer.from(command, 'utf8');
  const between = (from: number, to: number) => bytes.subarray(from, to).toString('utf8');
  return { file, between, source: (node) => between(node.Pos().Offset(), node.End().Offset()) };
}

/** The node's type name (`CallExpr`, `Word`, `Lit` …). */
export const typeOf = (node: Node): string => syntax.NodeType(node);

/** A Go slice field of a node as an array (a nil slice is null). */
export function list(node: Node, field: string): Node[] {
  const value = node[field];
  return Array.isArray(value) ? (value as Node[]) : [];
}

/** A Go pointer field of a node (nil is null). */
export function child(node: Node, field: string): Node | undefined {
  const value = node[field];
  return value && typeof value === 'object' ? (value as Node) : undefined;
}
