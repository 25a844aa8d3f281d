import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/node-flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}/${path}`, 'utf8');

/** The capacity in MiB V8 reports for the young generation of a fresh `node` with `flags` (1 by default on Node 20). */
function youngGenerationMiB(flags: readonly string[]): number {
  const script =
    "const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); console.log(s.space_size / 1048576)";
  return Number(execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }).trim());
}

describe('the Node flags toolgate runs with', () => {
  it('are spelled out by every way of starting it: npm start, the toolgate command, the image', () => {
    const flags = NODE_FLAGS.join(' ');
    const pkg = JSON.parse(read('package.json')) as { scripts: { start: string }; bin: { toolgate: string } };
    expect(pkg.scripts.start).toBe(`exec node ${flags} dist/cli.js serve`);
    expect(pkg.bin.toolgate).toBe('dist/cli.js');
    // tsc keeps the first line of src/cli.ts in dist/cli.js; `env -S` splits it into node and its flags.
    expect(read('src/cli.ts').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(read('docker/Dockerfile'))?.[1];
    expect(JSON.parse(entrypoint ?? 'null')).toEqual(['node', ...NODE_FLAGS, 'dist/cli.js']);
  });

  it('start the young generation at its full size, which a default process only grows to under load', () => {
    const flagged = youngGenerationMiB(NODE_FLAGS);
    expect(flagged).toBeGreaterThanOrEqual(16);
    expect(youngGenerationMiB([])).toBeLessThan(flagged);
  });
});
