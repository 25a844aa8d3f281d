import { describe, expect, it } from 'vitest';
import { mapResolveError, refuseMalformed, statNow } from '../../../src/tools/path-errors.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('paths no workspace file may have, and what a failed resolution answers', () => {
  it('an empty path, a control character or a backslash is INVALID_ARGS; a plain path passes', () => {
    for (const p of ['', 'a\nb', 'a\u007fb', 'src\\index.ts'])
      expect(() => refuseMalformed(p)).toThrow(expect.objectContaining({ code: 'INVALID_ARGS' }));
    expect(() => refuseMalformed('src/index.ts')).not.toThrow();
  });

  it('a path gone since it resolved is NOT_FOUND, never a tool failure; links and access are PERMISSION_DENIED', () => {
    expect(mapResolveError('a', errno('ENOENT'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(mapResolveError('a', errno('ENOTDIR'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(mapResolveError('a', errno('ELOOP'))).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(mapResolveError('a', errno('EACCES'))).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(mapResolveError('a', errno('ENAMETOOLONG'))).toMatchObject({ code: 'INVALID_ARGS' });
    const other = errno('EIO');
    expect(mapResolveError('a', other)).toBe(other);
  });

  it('statNow answers a vanished file as NOT_FOUND under the path the caller gave', async () => {
    await expect(statNow('shown.txt', '/nonexistent/toolgate/path')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('"shown.txt"'),
    });
  });
});
