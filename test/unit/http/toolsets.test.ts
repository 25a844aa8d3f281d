import { describe, expect, it } from 'vitest';
import { inToolset } from '../../../src/http/toolsets.js';
import type { Caller } from '../../../src/pipeline/types.js';

const TOOLSETS = { files: ['Read', 'Glob'], shell: ['Bash'] };
const caller = (over: Partial<Caller> = {}): Caller => ({
  keyId: 'k',
  tenant: 't',
  scopes: new Set(['execute']),
  allows: (tool) => tool !== 'Glob',
  ...over,
});

describe('inToolset: the caller held to a named set as well as to its key', () => {
  it('without a name is the caller as it is', () => {
    const c = caller();
    expect(inToolset(c, undefined, TOOLSETS)).toBe(c);
  });

  it('allows only the tools both the set and the key allow, and names the set', () => {
    const held = inToolset(caller(), 'files', TOOLSETS);
    expect(['Read', 'Glob', 'Bash'].filter((tool) => held.allows(tool))).toEqual(['Read']);
    expect(held.toolset).toBe('files');
    expect(held.only).toEqual([['Read', 'Glob']]);
  });

  it("is 404 for a set not configured or not one of the key's, naming only the key's own sets", () => {
    expect(() => inToolset(caller(), 'nope', TOOLSETS)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', details: { available: ['files', 'shell'] } }),
    );
    expect(() => inToolset(caller({ toolsets: ['files'] }), 'shell', TOOLSETS)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', details: { available: ['files'] } }),
    );
  });
});
