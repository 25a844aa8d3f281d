import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashClassify } from '../../../../src/tools/bash/classify-command.js';

/** `toolgate bash classify` (docs/bash.md): the verdict, tier and reasons under the configured policy, nothing run. */

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-classify-cli-'));
  await mkdir(join(dir, 'ws'));
  // Bash is not enabled: classify judges all the same. A rule asks for every npm command.
  await writeFile(
    join(dir, 'config.yaml'),
    JSON.stringify({
      workspace: join(dir, 'ws'),
      policy: { rules: [{ tool: 'Bash', when: { command: '^npm( |$)' }, decision: 'allow' }] },
    }),
  );
  env = { TOOLGATE_CONFIG: join(dir, 'config.yaml') };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function classify(argv: string[], lines: string[] = []): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await bashClassify(argv, env, Readable.from(lines.map((l) => `${l}\n`)), (line) => out.push(line));
  return { code, out };
}

describe('toolgate bash classify', () => {
  it('prints the verdict, the tier and the reasons of one command, running nothing', async () => {
    const { code, out } = await classify(['--sandbox', 'none', `cat /etc/passwd > ${join(dir, 'ran')}`]);
    expect(code).toBe(0);
    expect(out[0]).toBe('verdict: ask');
    expect(out[1]).toBe('tier: none');
    expect(out.slice(2).join('\n')).toContain('/etc/passwd is an absolute path');
    await expect(import('node:fs').then((fs) => fs.existsSync(join(dir, 'ran')))).resolves.toBe(false);
  });

  it('--sandbox required judges with the sandbox tier, none with the inert core', async () => {
    expect((await classify(['--sandbox', 'required', 'jq . x.json'])).out.slice(0, 2)).toEqual(['verdict: allow', 'tier: sandbox']);
    expect((await classify(['--sandbox', 'none', 'jq . x.json'])).out.slice(0, 2)).toEqual(['verdict: ask', 'tier: none']);
  });

  it("the configured policy's rules decide where they match", async () => {
    const { out } = await classify(['--sandbox', 'none', 'npm test']);
    expect(out.slice(0, 2)).toEqual(['verdict: allow', 'tier: none']);
    expect(out.join('\n')).toContain(
      'ask: npm test: npm is not a command the classifier knows to be read-only (a policy rule on Bash decides it: allow)',
    );
  });

  it('--jsonl: one judgement per line in order, a bad line an error line, exit 1', async () => {
    const lines = [
      JSON.stringify({ command: 'ls' }),
      'not json',
      JSON.stringify({ command: 'rm -rf x' }),
      JSON.stringify({ cmd: 'ls' }),
      '',
      JSON.stringify({ command: 'echo $((' }),
    ];
    const { code, out } = await classify(['--jsonl', '--sandbox', 'none'], lines);
    expect(code).toBe(1);
    const parsed = out.map((line) => JSON.parse(line));
    expect(parsed.map((p) => p.verdict ?? p.error)).toEqual([
      'allow',
      expect.stringContaining('not JSON'),
      'deny',
      expect.stringContaining('"command"'),
      'deny',
    ]);
    expect(parsed[0]).toEqual({ command: 'ls', verdict: 'allow', tier: 'none', reasons: expect.any(Array) });
    expect(parsed[1]).toMatchObject({ line: 2 });
    expect(parsed[4].reasons.join(' ')).toContain('cannot parse');
  });

  it('bad arguments are an error naming the usage', async () => {
    await expect(classify(['--sandbox', 'auto', 'ls'])).rejects.toThrow(/--sandbox must be none or required/);
    await expect(classify([])).rejects.toThrow(/usage: toolgate bash classify/);
    await expect(classify(['--jsonl', 'ls'])).rejects.toThrow(/usage/);
  });

  it('through the CLI: --jsonl on stdin, JSON lines on stdout', async () => {
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli.ts', 'bash', 'classify', '--jsonl', '--sandbox', 'none'],
        { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
        (err, stdout) => resolve({ code: err ? Number(err.code) : 0, stdout }),
      );
      child.stdin!.end(`${JSON.stringify({ command: 'awk \'BEGIN{x=1system("id")}\'' })}\n${JSON.stringify({ command: 'pwd' })}\n`);
    });
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).verdict),
    ).toEqual(['deny', 'allow']);
  }, 150_000);
});
