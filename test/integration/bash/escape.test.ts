import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { bashTool, eventually, makeWorkspace, pidNamespaceOf, processesWith, removeAll, run, tasksIn } from './helpers.js';

/**
 * Commands in the sandbox (`sandbox: required`, so a
 * host without a working bubblewrap fails here with an install hint) try to
 * get out, and each test checks that nothing leaked. Everything they aim at
 * is readable and writable by the user commands run as, so only the sandbox
 * stands in the way; unsandboxed.test.ts shows the same commands succeed
 * without it.
 */

const token = `sentinel-${randomBytes(8).toString('hex')}`;
let workspace: string;
let outside: string;
let sentinel: string;
let tool: Tool;

beforeAll(async () => {
  workspace = await makeWorkspace();
  outside = await mkdtemp(join(tmpdir(), 'toolgate-bash-outside-'));
  await chmod(outside, 0o777);
  sentinel = join(outside, 'secret.txt');
  await writeFile(sentinel, `${token}\n`, { mode: 0o644 });
  tool = bashTool(workspace, { sandbox: 'required', limits: { processes: 48, file_size_bytes: 1_048_576 } });
});
afterAll(() => removeAll(workspace, outside));

const textOf = (ran: Awaited<ReturnType<typeof run>>) => ran.output?.text ?? ran.error?.message ?? '';

describe('the sandbox: reading outside the workspace', () => {
  it('GET /tools/Bash would say bwrap: the tool runs in bubblewrap', () => {
    expect(tool.sandbox).toEqual({ mode: 'bwrap', setting: 'required' });
  });

  it('by absolute path: the file is not there', async () => {
    const ran = await run(tool, `cat ${sentinel}; ls ${outside}`);
    expect(textOf(ran)).not.toContain(token);
    expect(ran.output?.text).toContain('No such file or directory');
  });

  it("via ..: the workspace's parent holds nothing of the host", async () => {
    const ran = await run(tool, `cat ../${basename(outside)}/secret.txt`);
    expect(textOf(ran)).not.toContain(token);
    expect(textOf(ran)).toContain('No such file or directory');
    const listing = await run(tool, 'ls -a ..');
    expect(listing.output?.text.split('\n').filter(Boolean)).toEqual(['.', '..', basename(workspace)]);
  });

  it('via a symlink made inside the workspace: it points at nothing', async () => {
    const ran = await run(tool, `ln -s ${sentinel} link && cat link`);
    expect(textOf(ran)).not.toContain(token);
    expect(ran.error?.code ?? ran.output?.error?.code).toBe('COMMAND_FAILED');
  });

  it("the host's /etc, /root and /home are not there", async () => {
    const ran = await run(tool, 'ls /etc /root /home /work /var 2>&1; cat /etc/passwd /etc/hostname');
    expect(textOf(ran)).toContain('No such file or directory');
    expect(textOf(ran)).not.toContain('root:x:0:0');
  });
});

describe('the sandbox: writing outside the workspace', () => {
  it('by absolute path, via .., to /usr and to /tmp: nothing lands on the host', async () => {
    const ran = await run(
      tool,
      `echo a > ${outside}/abs.txt; echo b > ../${basename(outside)}/rel.txt; echo c > /usr/x.txt; echo d > /tmp/tmp-${token}; echo wrote-tmp`,
    );
    expect(textOf(ran)).toContain('wrote-tmp');
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await stat('/usr/x.txt').catch(() => null)).toBeNull();
    expect(await stat(join(tmpdir(), `tmp-${token}`)).catch(() => null)).toBeNull();
  });

  it('the workspace is the one writable place, and what is written there is on the host', async () => {
    const ran = await run(tool, 'echo kept > kept.txt && cat kept.txt');
    expect(ran.output?.text).toBe('kept\n');
    expect((await stat(join(workspace, 'kept.txt'))).size).toBe(5);
  });
});

describe('the sandbox: the network and the gateway', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a loopback server of the host is not reachable: the sandbox has a network of its own', async () => {
    const ran = await run(tool, `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED && cat <&3'`);
    expect(textOf(ran)).not.toContain('CONNECTED');
    expect(connections).toBe(0);
  });

  it("the gateway's environment variables are not visible, in env nor through /proc", async () => {
    process.env.TOOLGATE_ESCAPE_SECRET = token;
    try {
      const ran = await run(tool, `env; for f in /proc/*/environ; do tr '\\0' '\\n' < $f; done; cat /proc/${process.pid}/environ`);
      expect(textOf(ran)).not.toContain(token);
      expect(textOf(ran)).toContain('HOME=');
    } finally {
      delete process.env.TOOLGATE_ESCAPE_SECRET;
    }
  });
});

describe('the sandbox: processes and disk', () => {
  it('no process survives the deadline, not even one that left the process group (setsid)', async () => {
    const marker = `${1000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
    const ran = await run(tool, `sleep ${marker} & setsid sleep ${marker} & echo started; sleep ${marker}`, { timeoutMs: 1_000 });
    expect(ran.error?.code).toBe('TIMEOUT');
    expect(
      await eventually(
        () => processesWith(`sleep\0${marker}`),
        (pids) => pids.length === 0,
      ),
    ).toEqual([]);
  });

  it('nothing a command started in the background outlives it', async () => {
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
    const ran = await run(tool, `setsid sleep ${marker} > /dev/null 2>&1 & sleep ${marker} > /dev/null 2>&1 & echo done`);
    expect(ran.output?.text).toBe('done\n');
    expect(
      await eventually(
        () => processesWith(`sleep\0${marker}`),
        (pids) => pids.length === 0,
      ),
    ).toEqual([]);
  });

  it('a fork bomb is bounded by the process limit, and gone after the deadline', async () => {
    const marker = `20.${Date.now() % 100000}${Math.floor(Math.random() * 1000)}`;
    let namespace: string | undefined;
    let peak = 0;
    let sampling = true;
    // Counts the tasks of the command's own PID namespace, found through one of its marked sleeps: nothing else on the host is counted.
    const sampler = (async () => {
      while (sampling) {
        if (!namespace) {
          const [pid] = await processesWith(`sleep\0${marker}`);
          namespace = pid === undefined ? undefined : await pidNamespaceOf(pid);
        }
        if (namespace) peak = Math.max(peak, await tasksIn(namespace));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    // Each copy starts two more and stays alive, so the count climbs until fork fails, and plateaus there.
    const ran = await run(tool, `bomb() { bomb & bomb & sleep ${marker}; }; bomb`, { timeoutMs: 3_000 });
    sampling = false;
    await sampler;
    expect(ran.error?.code).toBe('TIMEOUT');
    // limits.processes is 48: past it the kernel refuses the sandbox's next process. Run as root, it would not (hundreds).
    expect(peak).toBeGreaterThan(16);
    expect(peak).toBeLessThanOrEqual(48);
    expect(
      await eventually(
        () => processesWith(`sleep\0${marker}`),
        (pids) => pids.length === 0,
      ),
    ).toEqual([]);
  });

  it('filling the disk stops at the file-size limit', async () => {
    const ran = await run(tool, 'head -c 50000000 /dev/zero > big.bin; echo exit=$?', { timeoutMs: 10_000 });
    expect(ran.output?.text).toMatch(/exit=(1|153)/);
    expect((await stat(join(workspace, 'big.bin'))).size).toBe(1_048_576);
  });
});
