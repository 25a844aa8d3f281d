import { describe, expect, it } from 'vitest';
import { isSystemProgram } from '../../../../../src/tools/bash/classify/resolve.js';

describe("a program the system's packages installed", () => {
  it('a bare name found in a system folder, or a path in one, runs a system program', () => {
    expect(isSystemProgram('ls')).toBe(true);
    expect(isSystemProgram('/usr/bin/env')).toBe(true);
  });

  it('a path outside the system folders does not; a name found nowhere runs nothing', () => {
    expect(isSystemProgram('./ls')).toBe(false);
    expect(isSystemProgram('/tmp/ls')).toBe(false);
    expect(isSystemProgram('no-such-program-anywhere')).toBe(true);
  });
});
