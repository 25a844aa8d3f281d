import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { importCircles, readSourceGraph, type SourceGraph } from './source-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the import graph of the repository (src, test, bench, scripts)', () => {
  let graph: SourceGraph;
  beforeAll(() => {
    graph = readSourceGraph(ROOT);
  }, 60_000);

  it('has no circle: a file never imports, even by a type or import(), a file that imports it back', () => {
    expect(importCircles(graph.imports)).toEqual([]);
  });

  it('exports only what another file imports: a name used only in its own file is not exported, one used nowhere is not written', () => {
    expect(graph.unusedExports).toEqual([]);
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

describe('files of src/, test/, bench/ and scripts/', () => {
  it('are at most 300 lines each: a longer one holds more than one thing', () => {
    const long = ['src', 'test', 'bench', 'scripts']
      .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((file) => `${dir}/${file}`))
      .filter((file) => /\.(ts|js|mjs|lua)$/.test(file) && readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 > 300);
    expect(long).toEqual([]);
  });
});
