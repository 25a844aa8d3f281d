import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { lookupGate } from '../../../../src/pipeline/gates/lookup.js';
import type { ExecContext, PipelineDeps, PlannedCall } from '../../../../src/pipeline/types.js';
import { createRegistry, registryDefaults } from '../../../../src/registry/registry.js';
import type { Tool } from '../../../../src/tools/tool.js';
import { caller } from '../../../helpers/gates.js';

const tool = (name: string): Tool => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object' },
  concurrencySafe: true,
  run: async () => ({ text: '' }),
});
const deps = {
  registry: createRegistry([tool('Read'), tool('Write'), tool('secret_tool')], registryDefaults(configFrom({}))),
} as unknown as PipelineDeps;
/** A call as it reaches gate 2: parsed, not yet looked up. */
const arriving = (name: string): PlannedCall => ({ index: 0, id: 'call_1', name, rawArguments: {}, args: {} });
const lookup = (name: string, allows: (tool: string) => boolean = () => true) => {
  const call = arriving(name);
  return { call, failure: lookupGate.check!(call, { caller: caller({ allows }), sessionId: 's' } as ExecContext, deps) };
};

const unknown = (name: string, available: string[]) => ({
  code: 'UNKNOWN_TOOL',
  message: `No tool named ${JSON.stringify(name)}.`,
  retryable: false,
  suggestion: 'Call one of the tools in details.available.',
  details: { available },
});

describe('lookup gate: the tool exists and the key may use it, or UNKNOWN_TOOL', () => {
  it('a registered tool the key may use passes, with its registry entry on the call', () => {
    const { call, failure } = lookup('Write');
    expect(failure).toBeUndefined();
    expect(call.entry).toBe(deps.registry.get('Write'));
  });

  it('an unknown name is UNKNOWN_TOOL, not retryable, listing the tools the key may call', () => {
    expect(lookup('Nope').failure!.toCallError()).toEqual(unknown('Nope', ['Read', 'Write', 'secret_tool']));
  });

  it('a tool the key may not use answers exactly like one that does not exist, and is left out of the list', () => {
    const allows = (name: string) => name !== 'secret_tool';
    const hidden = lookup('secret_tool', allows);
    expect(hidden.failure!.toCallError()).toEqual(unknown('secret_tool', ['Read', 'Write']));
    expect(hidden.call.entry).toBeUndefined();
    expect(lookup('Nope', allows).failure!.toCallError()).toEqual(unknown('Nope', ['Read', 'Write']));
  });

  it('names are exact: another case is another (unknown) tool', () => {
    expect(lookup('read').failure!.code).toBe('UNKNOWN_TOOL');
  });

  it('the message quotes at most 100 characters of a long name', () => {
    const name = 'x'.repeat(5_000);
    expect(lookup(name).failure!.message).toBe(`No tool named ${JSON.stringify('x'.repeat(100))}.`);
  });
});
