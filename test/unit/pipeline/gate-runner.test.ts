import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GATES } from '../../../src/pipeline/gate-runner.js';

const API = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');

/** The bold names of docs/api.md's "The gates, in order", numbered items and the gates listed under them, top to bottom. */
function documentedGates(): string[] {
  const section = API.split('### The gates, in order')[1]?.split('\n### ')[0];
  if (!section) throw new Error('docs/api.md has no section "The gates, in order"');
  return [...section.matchAll(/^\s*(?:\d+\.|-) \*\*([^*]+)\*\*/gm)].map((m) => m[1]!);
}

describe('the gate array is the order the docs tell', () => {
  it("docs/api.md lists the pipeline's gates by name and in their order, then execute and record", () => {
    expect(documentedGates()).toEqual([...GATES.map((gate) => gate.name), 'execute', 'record']);
  });

  it('every gate checks a call, takes part in admission, or both', () => {
    for (const gate of GATES) expect(gate.check !== undefined || gate.admit !== undefined, gate.name).toBe(true);
  });
});
