import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config/load.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { accepts, waitFor } from '../../helpers/redis.js';
import { makeWorkspace, removeAll } from './helpers.js';

/**
 * The container runs Bash sandboxed: the image ships bubblewrap, the
 * compose stack gives the gateways the project's seccomp profile (and no
 * privilege), and that profile allows every system call a real gateway and
 * its sandbox make. No Docker engine runs where the tests run, so the last is
 * shown by tracing (strace) a real gateway process that runs commands in
 * bubblewrap through POST /execute, and comparing what it called with the
 * profile's list.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(root, 'src/cli.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const PROFILE = 'docker/seccomp/toolgate.json';

interface Profile {
  defaultAction: string;
  defaultErrnoRet: number;
  archMap: Array<{ architecture: string }>;
  syscalls: Array<{ names: string[]; action: string; comment: string; args?: unknown }>;
}
const profile = async () => JSON.parse(await readFile(join(root, PROFILE), 'utf8')) as Profile;
const allowed = (p: Profile) => new Set(p.syscalls.flatMap((s) => s.names));

describe('the image and the compose stack', () => {
  it('the image installs bubblewrap where the gateway runs', async () => {
    const dockerfile = await readFile(join(root, 'docker/Dockerfile'), 'utf8');
    expect(dockerfile.split(/^FROM /m).at(-1)).toMatch(/^RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap /m);
  });

  it("every gateway and worker gets the project's seccomp profile, and nothing privileged or unconfined", async () => {
    const text = await readFile(join(root, 'docker-compose.yml'), 'utf8');
    const services = parse(text, { merge: true }).services as Record<string, Record<string, unknown>>;
    const gateways = Object.entries(services).filter(
      ([, s]) => (s.build as { dockerfile?: string } | undefined)?.dockerfile === 'docker/Dockerfile',
    );
    expect(gateways.map(([name]) => name).sort()).toEqual(['toolgate-a', 'toolgate-b', 'worker']);
    for (const [name, service] of gateways) {
      expect(service.security_opt, name).toEqual([`seccomp=./${PROFILE}`, 'apparmor=unconfined', 'systempaths=unconfined']);
      expect(service.privileged, name).toBeUndefined();
      expect(service.cap_add, name).toBeUndefined();
    }
    expect(text).not.toMatch(/privileged:\s*true|seccomp[=:]\s*unconfined|cap_add/);
  });

  it("the stack's config enables Bash with the sandbox required, so a missing piece stops start-up instead of running unsandboxed", () => {
    const config = loadConfig({ HOST: '0.0.0.0', REDIS_URL: 'redis://redis:6379' }, join(root, 'docker/config.yaml'));
    expect(config.builtins.Bash).toMatchObject({ enabled: true, sandbox: 'required' });
  });
});

/** System calls the profile never allows, with why: each reaches past the container, or is a known door into the kernel. */
const NEVER: Record<string, string> = {
  ptrace: 'reads and changes another process, the gateway included',
  process_vm_readv: "reads another process's memory",
  process_vm_writev: "writes another process's memory",
  bpf: 'loads programs into the kernel',
  perf_event_open: 'a long line of kernel exploits',
  userfaultfd: 'the usual tool of kernel race exploits',
  io_uring_setup: 'a second system-call interface that seccomp does not see',
  keyctl: "the kernel's keyrings are not namespaced",
  add_key: "the kernel's keyrings are not namespaced",
  request_key: "the kernel's keyrings are not namespaced",
  init_module: 'loads kernel modules',
  finit_module: 'loads kernel modules',
  delete_module: 'unloads kernel modules',
  kexec_load: 'replaces the running kernel',
  reboot: 'reboots the host',
  open_by_handle_at: 'opens a file of the host by its handle, past every mount (the shocker escape)',
  setns: 'joins namespaces the container did not make',
  mount_setattr: 'changes mounts through the new mount API, which bubblewrap does not use',
  fsopen: 'the new mount API, which bubblewrap does not use',
  move_mount: 'the new mount API, which bubblewrap does not use',
  clock_settime: "sets the host's clock",
  settimeofday: "sets the host's clock",
  adjtimex: "adjusts the host's clock",
  swapon: "changes the host's swap",
  acct: 'turns process accounting on for the host',
  syslog: "reads the kernel's log",
  quotactl: "changes the host's disk quotas",
  iopl: 'reaches I/O ports',
  ioperm: 'reaches I/O ports',
  personality: 'turns off address-space randomisation',
};

describe(`${PROFILE}: an allow-list, every group with why`, () => {
  it('refuses what it does not list as not implemented (ENOSYS), so a program falls back from a newer call to an older one', async () => {
    const p = await profile();
    expect(p.defaultAction).toBe('SCMP_ACT_ERRNO');
    expect(p.defaultErrnoRet).toBe(38);
    expect(p.archMap.map((a) => a.architecture)).toEqual(['SCMP_ARCH_X86_64', 'SCMP_ARCH_AARCH64']);
    for (const group of p.syscalls) {
      expect(group.action).toBe('SCMP_ACT_ALLOW');
      expect(group.comment.length, group.names.join(' ')).toBeGreaterThan(20);
      expect(group.args).toBeUndefined();
    }
    const names = p.syscalls.flatMap((s) => s.names);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(Object.entries(NEVER))('never allows %s: %s', async (name) => {
    expect(allowed(await profile()).has(name)).toBe(false);
  });
});

describe('a real gateway and its sandbox, traced, call nothing the profile refuses', () => {
  let workspace: string;
  let scratch: string;
  let calls: Map<string, number>;

  beforeAll(async () => {
    workspace = await makeWorkspace();
    scratch = await mkdtemp(join(tmpdir(), 'toolgate-seccomp-'));
    await writeFile(join(workspace, 'notes.txt'), 'hello sandbox\n');
    const config = join(scratch, 'config.yaml');
    await writeFile(config, JSON.stringify({ allow_unauthenticated: true, builtins: { Bash: { enabled: true, sandbox: 'required' } } }));
    const port = await freePort();
    const trace = join(scratch, 'trace');
    const strace = spawnSync('strace', ['-V'], { encoding: 'utf8' });
    if (strace.error) throw new Error(`strace not found: apt-get install strace (.ci/run does it when missing): ${strace.error.message}`);
    const env = {
      PATH: process.env.PATH!,
      HOME: scratch,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TOOLGATE_CONFIG: config,
      TOOLGATE_WORKSPACE: workspace,
      TOOLGATE_SPILL_URL: `file://${join(scratch, 'spill')}`,
    };
    const child = spawn('strace', ['-f', '-qq', '-o', trace, process.execPath, '--import', TSX, CLI, 'serve'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-10_000)));
    try {
      await waitFor(
        'the traced gateway',
        async () => {
          if (child.exitCode !== null) throw new Error(`the gateway exited: ${output}`);
          return accepts(port);
        },
        120_000,
      );
      const execute = async (calls: unknown[]) => {
        const response = await fetch(`http://127.0.0.1:${port}/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(calls),
        });
        return ((await response.json()) as { results: Array<{ status: string; text: string }> }).results;
      };
      const commands = [
        'ls -la',
        'cat notes.txt',
        'grep -rn hello .',
        'sed -n p notes.txt | sort | uniq -c',
        "awk '{print $1}' notes.txt",
        'find . -name "*.txt"',
        'date; uname -a; id',
        'echo written > out.txt',
        'wc -l < notes.txt',
      ];
      const results = await execute(commands.map((command, i) => ({ id: `b${i}`, name: 'Bash', arguments: { command } })));
      expect(results.map((r) => r.status)).toEqual(commands.map((c) => (c.includes('>') ? 'error' : 'success')));
      expect(results[1]!.text).toBe('hello sandbox\n');
      const files = await execute([
        { id: 'r', name: 'Read', arguments: { path: 'notes.txt' } },
        { id: 'g', name: 'Grep', arguments: { pattern: 'hello' } },
        { id: 'w', name: 'Write', arguments: { path: 'new.txt', content: 'x\n' } },
      ]);
      expect(files.map((r) => r.status)).toEqual(['success', 'success', 'success']);
    } finally {
      // The gateway, strace's child, stops on SIGTERM as deployed; strace writes the rest of the trace and exits after it.
      const gateway = Number((await readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')).trim().split(' ')[0]);
      process.kill(gateway, 'SIGTERM');
      await once(child, 'exit');
    }
    calls = new Map();
    for (const line of (await readFile(trace, 'utf8')).split('\n')) {
      const name = /^\d+ +(?:<\.\.\. )?([a-z0-9_]+)[( ]/.exec(line)?.[1];
      if (name && name !== 'exited' && name !== 'killed') calls.set(name, (calls.get(name) ?? 0) + 1);
    }
  }, 240_000);

  afterAll(async () => {
    await removeAll(workspace, scratch);
  });

  it('the trace saw bubblewrap build its sandbox: namespaces, mounts, a new root', () => {
    for (const name of ['mount', 'pivot_root', 'umount2', 'sethostname', 'execve']) expect(calls.get(name), name).toBeGreaterThan(0);
    expect((calls.get('clone') ?? 0) + (calls.get('clone3') ?? 0) + (calls.get('unshare') ?? 0)).toBeGreaterThan(0);
  });

  it('every system call it made is one the profile allows', async () => {
    const allow = allowed(await profile());
    expect([...calls.keys()].filter((name) => !allow.has(name)).sort()).toEqual([]);
  });
});
