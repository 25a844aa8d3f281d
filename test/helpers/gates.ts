import { configFrom } from '../../src/config/load.js';
import type { Caller, PipelineDeps, PlannedCall } from '../../src/pipeline/types.js';
import { createRegistry, registryDefaults } from '../../src/registry/registry.js';
import type { Tool } from '../../src/tools/tool.js';

/**
 * A call as it reaches the stateful gates (past parse, lookup, validate and
 * permission), its entry registered the way the gateway registers tools.
 */
export function plannedCall(
  tool: Partial<Tool> & { name: string },
  args: Record<string, unknown> = {},
  more: Partial<PlannedCall> = {},
): PlannedCall {
  const config = configFrom({});
  const full: Tool = {
    description: 'A tool under test.',
    parameters: { type: 'object' },
    concurrencySafe: false,
    run: async () => ({ text: '' }),
    ...tool,
  };
  const entry = createRegistry([full], registryDefaults(config)).get(tool.name)!;
  return { index: 0, id: 'call_1', name: tool.name, rawArguments: args, entry, args, decision: 'allow', ...more };
}

export function caller(more: Partial<Caller> = {}): Caller {
  return { keyId: 'agent', tenant: 'acme', scopes: new Set(['execute']), allows: () => true, ...more };
}

/** The gates read only the config of their deps. */
export function gateDeps(config: Record<string, unknown> = {}): PipelineDeps {
  return { config: configFrom(config) } as unknown as PipelineDeps;
}
