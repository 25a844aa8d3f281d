import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpillStore } from '../../../src/spill/spill-store.js';
import type { Tool } from '../../../src/tools/tool.js';
import { bashTool, eventually, makeSpill, makeWorkspace, processesWith, removeAll, run } from './helpers.js';

/**
 * The Bash execution rules (docs/bash.md) with `sandbox: none`, where only the
 * gateway's own measures hold: the environment built from scratch, the
 * workspace as working directory, the output caps with spill, the deadline
 * killing the process group, the resource limits, stdin at end of file. The
 * same escape commands that fail in the sandbox succeed here, which is what
 * the sandbox adds.
 */

const token = `sentinel-${randomBytes(8).toString('hex')}`;
let workspace: string;
let outside: string;
let spill: { store: SpillStore; dir: string };
let tool: Tool;
const CAP = 4096;

beforeAll(async () => {
  workspace = await makeWorkspace();
  outside = await mkdtemp(join(tmpdir(), 'toolgate-bash-outside-'));
  await chmod(outside, 0o755);
  await writeFile(join(outside, 'secret.txt'), `${token}\n`, { mode: 0o644 });
  spill = await makeSpill();
  tool = bashTool(workspace, { sandbox: 'none', output_cap_bytes: CAP, limits: { file_size_bytes: 65_536 } });
});
afterAll(() => removeAll(workspace, outside, spill.dir));

async function readSpilled(id: string): Promise<Buffer> {
  const read = await spill.store.get('t1', id);
  if (!read) throw new Error(`no spilled output ${id}`);
  const chunks: Buffer[] = [];
  for await (const chunk of read.body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('sandbox: none — the environment and the working directory', () => {
  it('the tool says it runs without a sandbox', () => {
    expect(tool.sandbox).toEqual({ mode: 'none', setting: 'none' });
  });

  it('the environment is built from scratch: PATH, HOME and its kin (an empty folder outside the workspace), LANG, the git settings, and nothing of the gateway', async () => {
    process.env.TOOLGATE_UNSANDBOXED_SECRET = token;
    try {
      const ran = await run(tool, 'env | sort');
      const names = ran
        .output!.text.split('\n')
        .filter(Boolean)
        .map((line) => line.split('=')[0]!);
      // PWD, SHLVL and _ are bash's own.
      expect(names.filter((name) => !name.startsWith('GIT_'))).toEqual([
        'GNUPGHOME',
        'HOME',
        'LANG',
        'PATH',
        'PWD',
        'SHLVL',
        'XDG_CACHE_HOME',
        'XDG_CONFIG_HOME',
        'XDG_DATA_HOME',
        'XDG_STATE_HOME',
        '_',
      ]);
      expect(names).toContain('GIT_CONFIG_GLOBAL');
      expect(ran.output!.text).not.toContain(`HOME=${workspace}`);
      expect(ran.output!.text).toContain('PATH=/usr/local/bin:/usr/bin:/bin\n');
      expect(ran.output!.text).not.toContain(token);
    } finally {
      delete process.env.TOOLGATE_UNSANDBOXED_SECRET;
    }
  });

  it('runs in the workspace root, with stdin at end of file', async () => {
    const ran = await run(tool, 'pwd; cat; echo read-done');
    expect(ran.output?.text).toBe(`${workspace}\nread-done\n`);
  });

  it('without the sandbox the host is visible: the sentinel the sandbox hides is read here', async () => {
    const ran = await run(tool, `cat ${join(outside, 'secret.txt')}`);
    expect(ran.output?.text).toBe(`${token}\n`);
  });
});

describe("sandbox: none — the host's network is reachable, which the sandbox takes away", () => {
  let server: Server;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a loopback server gets the connection', async () => {
    const { port } = server.address() as { port: number };
    const ran = await run(tool, `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED'`);
    expect(ran.output?.text).toBe('CONNECTED\n');
    expect(connections).toBe(1);
  });
});

describe('sandbox: none — results', () => {
  it('exit 0: text is stdout, then stderr after the --- stderr --- line; data has the exit and the byte counts', async () => {
    const ran = await run(tool, 'echo out; echo err >&2');
    expect(ran.output).toEqual({
      text: 'out\n--- stderr ---\nerr\n',
      data: { exit_code: 0, signal: null, stdout_bytes: 4, stderr_bytes: 4 },
    });
  });

  it('a non-zero exit: COMMAND_FAILED, not retryable, with the same text and data', async () => {
    const ran = await run(tool, 'echo partial; echo oops >&2; exit 3');
    expect(ran.output?.text).toBe('partial\n--- stderr ---\noops\n');
    expect(ran.output?.data).toEqual({ exit_code: 3, signal: null, stdout_bytes: 8, stderr_bytes: 5 });
    expect(ran.output?.error?.toCallError()).toMatchObject({
      code: 'COMMAND_FAILED',
      retryable: false,
      details: { exit_code: 3, signal: null },
    });
  });

  it('a command killed by a signal: COMMAND_FAILED naming the signal', async () => {
    const ran = await run(tool, 'kill -TERM $$');
    expect(ran.output?.data).toMatchObject({ exit_code: null, signal: 'SIGTERM' });
    expect(ran.output?.error?.code).toBe('COMMAND_FAILED');
  });
});

describe('sandbox: none — output caps', () => {
  it('stdout over the cap: the first cap bytes in text, the whole stream spilled (the truncated record), the result partial', async () => {
    const ran = await run(tool, 'seq 1 20000', { spill: spill.store });
    const whole = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
    const output = ran.output!;
    expect(output.text).toBe(whole.slice(0, CAP));
    expect(output.partial).toBe(true);
    expect(output.data).toMatchObject({ exit_code: 0, stdout_bytes: whole.length, stderr_bytes: 0 });
    const record = output.spilled!.record as { id: string; bytes: number; sha256: string };
    expect(record.bytes).toBe(whole.length);
    expect(record.sha256).toBe(createHash('sha256').update(whole).digest('hex'));
    expect((await readSpilled(record.id)).toString()).toBe(whole);
  });

  it('both streams with one over the cap: each capped on its own, the cut one says where it is whole', async () => {
    const ran = await run(tool, 'echo small; seq 1 5000 >&2', { spill: spill.store });
    const output = ran.output!;
    expect(output.spilled).toBeUndefined();
    expect(output.partial).toBe(true);
    const [out, err] = output.text.split('--- stderr ---\n');
    expect(out).toBe('small\n');
    const note = /\[stderr cut at 4096 of (\d+) bytes; the whole stream: \/outputs\/([\w-]+)\]\n$/.exec(err!);
    expect(note?.[1]).toBe(String((output.data as { stderr_bytes: number }).stderr_bytes));
    expect((await readSpilled(note![2]!)).toString()).toBe(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(''));
  });
});

describe('sandbox: none — deadline and limits', () => {
  it('timeout_ms: TIMEOUT, and the whole process group is gone', async () => {
    const marker = `${3000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
    const started = Date.now();
    const ran = await run(tool, `sleep ${marker} & sleep ${marker} & sleep ${marker}`, { timeoutMs: 500 });
    expect(ran.error?.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(
      await eventually(
        () => processesWith(`sleep\0${marker}`),
        (pids) => pids.length === 0,
      ),
    ).toEqual([]);
  });

  it("the call's own deadline (the pipeline's abort) kills the group as well", async () => {
    const marker = `${4000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
    const ran = await run(tool, `sleep ${marker} & sleep ${marker}`, { callMs: 500 });
    expect(ran.error?.code).toBe('TIMEOUT');
    expect(
      await eventually(
        () => processesWith(`sleep\0${marker}`),
        (pids) => pids.length === 0,
      ),
    ).toEqual([]);
  });

  it('nothing started in the background (and left in the group) outlives the command', async () => {
    const marker = `${5000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
    const ran = await run(tool, `sleep ${marker} > /dev/null 2>&1 & sleep ${marker} & echo done`);
    expect(ran.output?.text).toBe('done\n');
    expect(
      await eventually(
        () => processesWith(`sleep\0${marker}`),
        (pids) => pids.length === 0,
      ),
    ).toEqual([]);
  });

  it('the file-size limit holds without the sandbox too', async () => {
    const ran = await run(tool, 'head -c 1000000 /dev/zero > big.bin; echo exit=$?');
    expect(ran.output?.text).toMatch(/exit=(1|153)/);
    expect((await stat(join(workspace, 'big.bin'))).size).toBe(65_536);
  });

  it('the open-files and CPU limits are set', async () => {
    const ran = await run(tool, 'ulimit -n; ulimit -t');
    expect(ran.output?.text).toBe('1024\n60\n');
  });
});
