import { describe, expect, it } from 'vitest';
import { holdsCopies, isGitDir } from '../../../../src/tools/bash/git-dirs.js';

describe('what of a git directory the sandbox keeps or hides', () => {
  it("the object store, the index (split too), LFS's store, rerere and a rebase's patches hold copies of the repository's files", () => {
    expect(['objects', 'index', 'sharedindex.0a1b', 'lfs', 'rr-cache', 'rebase-apply', 'rebase-merge'].every(holdsCopies)).toBe(true);
    expect(['refs', 'head', 'config', 'logs'].some(holdsCopies)).toBe(false);
  });

  it('a git directory: a .git folder, a bare repository, a worktree, and inside a .git tree a submodule', () => {
    expect(isGitDir(new Set(), true, false)).toBe(true);
    expect(isGitDir(new Set(['head', 'objects', 'refs']), false, false)).toBe(true);
    expect(isGitDir(new Set(['head', 'commondir']), false, false)).toBe(true);
    expect(isGitDir(new Set(['head', 'config']), false, true)).toBe(true);
    expect(isGitDir(new Set(['head', 'config']), false, false)).toBe(false);
    expect(isGitDir(new Set(['objects', 'refs']), false, false)).toBe(false);
  });
});
