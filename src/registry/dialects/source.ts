import type { Tool } from '../../tools/tool.js';

/** The fields of a tool its model-facing schema is built from. */
export type ToolSchemaSource = Pick<Tool, 'name' | 'description' | 'parameters' | 'concurrencySafe'>;
