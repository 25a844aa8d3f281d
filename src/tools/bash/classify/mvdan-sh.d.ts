/**
 * The part of mvdan-sh (mvdan/sh's syntax package compiled to JavaScript by
 * GopherJS) that the classifier uses. Nodes are Go structs: their fields keep
 * Go's names, and a nil pointer or empty slice is null or an empty array.
 */
declare module 'mvdan-sh' {
  export interface Pos {
    Offset(): number;
  }
  export interface Node {
    Pos(): Pos;
    End(): Pos;
    [field: string]: unknown;
  }
  export interface Parser {
    /** Throws (a Go error object, not an Error) when the source does not parse. */
    Parse(src: string, name: string): Node;
  }
  const sh: {
    syntax: {
      NewParser(...options: unknown[]): Parser;
      NodeType(node: Node): string;
      /** Visits every node depth first; `visit` returns whether to descend, and is called with null after a node's children. */
      Walk(node: Node, visit: (node: Node | null) => boolean): void;
      Variant(lang: unknown): unknown;
      LangBash: unknown;
    };
  };
  export default sh;
}
