import type { Tool } from './tool.js';

/**
 * A tool that does nothing, for measuring the gateway's own overhead. Served only when the config enables it (`builtins: {Noop: {enabled:
 * true}}`).
 */
export const noopTool: Tool = {
  name: 'Noop',
  description: 'Does nothing and answers at once; returns `echo` when given. For measuring the gateway, not for agents.',
  parameters: {
    type: 'object',
    properties: { echo: { type: 'string', maxLength: 1000, description: 'Text to return.' } },
    additionalProperties: false,
  },
  concurrencySafe: true,
  async run(args) {
    return { text: typeof args.echo === 'string' ? args.echo : 'ok' };
  },
};
