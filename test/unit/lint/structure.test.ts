import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { importCircles, readSourceGraph, type SourceGraph } from './source-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Circles being taken apart where they are: each names its files as importCircles does. */
const KNOWN_CIRCLES: readonly string[] = [
  // The Bash classifier's program table and its git/find judges are being reworked into one-way imports.
  'src/tools/bash/classify/git-find.ts src/tools/bash/classify/programs.ts',
];

describe('the import graph of src/', () => {
  let graph: SourceGraph;
  beforeAll(() => {
    graph = readSourceGraph(ROOT);
  }, 60_000);

  it('has no circle: a file never imports, even by a type or import(), a file that imports it back', () => {
    const circles = importCircles(graph.imports).map((files) => files.join(' '));
    expect(circles.filter((circle) => !KNOWN_CIRCLES.includes(circle))).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const imports = new Map([
      ['a.ts', new Set(['b.ts'])],
      ['b.ts', new Set(['c.ts'])],
      ['c.ts', new Set(['a.ts'])],
      ['d.ts', new Set(['d.ts', 'a.ts'])],
    ]);
    expect(importCircles(imports)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });
});
