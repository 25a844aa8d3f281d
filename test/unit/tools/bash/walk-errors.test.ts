import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gone, listFolder, locked, unchecked } from '../../../../src/tools/bash/walk-errors.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe("the mount walk's errors", () => {
  it('a path removed, or a link that dangles or loops, is gone: nothing below it to mount', () => {
    expect(['ENOENT', 'ENOTDIR', 'ELOOP'].map((code) => gone(errno(code)))).toEqual([true, true, true]);
    expect(gone(errno('EACCES'))).toBe(false);
  });

  it('a folder the walk cannot read, or one its owner made read-only, refuses the command, naming the fix', () => {
    expect(unchecked('secrets', errno('EACCES'))).toMatchObject({
      code: 'EXECUTION_FAILED',
      suggestion: expect.stringContaining('chmod u+rx secrets'),
    });
    expect(locked('vendor')).toMatchObject({ code: 'EXECUTION_FAILED', suggestion: expect.stringContaining('chmod u+wx vendor') });
  });

  it('lists a folder of the workspace; a missing one is undefined', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'toolgate-walk-errors-'));
    expect(await listFolder(workspace, '')).toEqual([]);
    expect(await listFolder(workspace, 'missing')).toBeUndefined();
  });
});
