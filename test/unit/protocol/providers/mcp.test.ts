import { describe, expect, it } from 'vitest';
import { toMcp } from '../../../../src/protocol/providers/mcp.js';
import { readSchema, tools } from './fixtures.js';

describe('dialects: the four formats, each as its provider expects', () => {
  it('mcp: inputSchema and read-only/destructive hints from concurrencySafe', () => {
    expect(toMcp(tools)).toEqual([
      { name: 'Read', description: 'Read a file.', inputSchema: readSchema, annotations: { readOnlyHint: true, destructiveHint: false } },
      {
        name: 'Bash',
        description: 'Read a file.',
        inputSchema: tools[1]?.parameters,
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
    ]);
  });
});
