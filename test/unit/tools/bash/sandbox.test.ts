import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../../../src/tools/bash/sandbox.js';

/** The sandbox's shape: what bubblewrap is told to build (escape tests in test/integration/bash/ prove it holds). */
describe('bubblewrap arguments', () => {
  const args = bwrapArgs('/srv/ws');
  const pairs = (flag: string) => args.flatMap((arg, i) => (arg === flag ? [[args[i + 1], args[i + 2]]] : []));

  it("every namespace unshared (network and PID included), dies with its parent, no capabilities, not the host's name", () => {
    expect(args).toContain('--unshare-all');
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain('--hostname sandbox');
    expect(args).toContain('--die-with-parent');
    expect(args.join(' ')).toContain('--cap-drop ALL');
  });

  it('the workspace is the only writable bind, mounted at its own path and the working directory', () => {
    expect(pairs('--bind')).toEqual([['/srv/ws', '/srv/ws']]);
    expect(args[args.indexOf('--chdir') + 1]).toBe('/srv/ws');
    expect(args).not.toContain('--bind-try');
    expect(args).not.toContain('--dev-bind');
  });

  it('read-only, the workspace is bound read-only and nothing is writable but the private /tmp', () => {
    const readOnly = bwrapArgs('/srv/ws', [], true);
    expect(readOnly).not.toContain('--bind');
    expect(readOnly.join(' ')).toContain('--ro-bind /srv/ws /srv/ws');
  });

  it('read-only: /usr, the system links, a few files of /etc; a private /tmp, its own /proc and a minimal /dev', () => {
    expect(pairs('--ro-bind')[0]).toEqual(['/usr', '/usr']);
    for (const [source] of pairs('--ro-bind-try'))
      expect(source).toMatch(/^\/etc\/(alternatives|ld\.so\.cache|ld\.so\.conf|ld\.so\.conf\.d|localtime)$/);
    expect(args.join(' ')).toContain('--tmpfs /tmp');
    expect(args.join(' ')).toContain('--proc /proc');
    expect(args.join(' ')).toContain('--dev /dev');
  });
});
