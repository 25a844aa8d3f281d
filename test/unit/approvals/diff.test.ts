import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/approvals/diff.js';

describe('unifiedDiff', () => {
  it('names the sides as git does, with 3 lines of context', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8'].join('\n') + '\n';
    const after = before.replace('5\n', 'five\n');
    const { diff, truncated } = unifiedDiff('src/a.txt', before, after);
    expect(truncated).toBe(false);
    expect(diff).toBe(
      ['--- a/src/a.txt', '+++ b/src/a.txt', '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+five', ' 6', ' 7', ' 8', ''].join('\n'),
    );
  });

  it('diffs a file that does not exist yet against /dev/null', () => {
    const { diff } = unifiedDiff('new.txt', null, 'hello\n');
    expect(diff.split('\n').slice(0, 4)).toEqual(['--- /dev/null', '+++ b/new.txt', '@@ -0,0 +1,1 @@', '+hello']);
  });

  it('says so when the call would leave the file as it is', () => {
    expect(unifiedDiff('same.txt', 'x\n', 'x\n')).toEqual({ diff: '', truncated: false, note: 'The call would leave the file as it is.' });
  });

  it('cuts a diff past 200 KiB at a line end and says how much there was', () => {
    const after = Array.from({ length: 30_000 }, (_, i) => `line ${i} of a long new file`).join('\n') + '\n';
    const shown = unifiedDiff('big.txt', null, after);
    expect(shown.truncated).toBe(true);
    expect(Buffer.byteLength(shown.diff)).toBeLessThanOrEqual(200 * 1024);
    expect(shown.diff.endsWith('\n')).toBe(true);
    expect(shown.note).toMatch(/^The diff is \d+ bytes; only its first \d+ are shown\./);
  });
});
