import { bashPermissionHooks } from '../../src/tools/bash/classify/index.js';
import type { Tool } from '../../src/tools/tool.js';

/**
 * A stand-in for the Bash tool with its real permission hooks: it runs
 * nothing, echoes the command it was given and records every run, so a test
 * sees what the permission gate and the approvals let through, and how often.
 */
export function echoBashTool(runs: string[]): Tool {
  return {
    ...bashPermissionHooks(),
    name: 'Bash',
    description: 'Echoes its command (test stand-in for Bash).',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' }, timeout_ms: { type: 'integer', minimum: 1 } },
      required: ['command'],
      additionalProperties: false,
    },
    concurrencySafe: false,
    async run(args) {
      runs.push(args.command as string);
      return { text: args.command as string };
    },
  };
}
