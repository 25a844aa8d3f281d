import { describe, expect, it } from 'vitest';
import { noopTool } from '../../../src/tools/noop.js';

describe('Noop: does nothing, for measuring the gateway', () => {
  it('answers its echo, or ok', async () => {
    expect(await noopTool.run({ echo: 'hi' }, undefined as never)).toEqual({ text: 'hi' });
    expect(await noopTool.run({}, undefined as never)).toEqual({ text: 'ok' });
    expect(noopTool.concurrencySafe).toBe(true);
  });
});
