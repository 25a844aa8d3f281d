import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { guardrailsScan } from '../../../src/guardrails/scan-command.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'toolgate-scan-'));

async function scan(args: string[], stdin: string | Buffer = '', env: NodeJS.ProcessEnv = {}) {
  let out = '';
  const err: string[] = [];
  const code = await guardrailsScan(args, env, {
    stdin: Readable.from([Buffer.from(stdin)]),
    out: (chunk) => (out += chunk),
    err: (line) => err.push(line),
  });
  return { code, out, err };
}

const github = FAKE_SECRETS.find((fake) => fake.kind === 'github_token')!;
const password = FAKE_SECRETS.find((fake) => fake.kind === 'password')!;

describe('toolgate guardrails scan', () => {
  it('prints a file as a model reads it, the note line first, then the counts', async () => {
    const file = join(dir, 'env');
    writeFileSync(file, `GITHUB=${github.secret}\n${password.text}\nplain line\n`);
    const { code, out, err } = await scan([file]);
    expect(code).toBe(0);
    expect(out).toMatch(/^\[2 values that looked like credentials \(github_token, password\) were redacted/);
    expect(out).toContain('\nGITHUB=[REDACTED:github_token]\nDB_PASSWORD=[REDACTED:password]\nplain line\n');
    expect(err).toEqual(['2 redacted: github_token 1, password 1']);
  });

  it('reads a UTF-16 file as its text', async () => {
    const file = join(dir, 'utf16.txt');
    writeFileSync(file, Buffer.from(`\ufefftoken ${github.secret}\n`, 'utf16le'));
    const { out } = await scan([file]);
    expect(out.endsWith('\ntoken [REDACTED:github_token]\n')).toBe(true);
  });

  it('--jsonl answers each {"text"} line in order, an empty object where nothing was redacted, and an error line for a bad one', async () => {
    const lines = [
      { text: 'nothing here' },
      { text: `a ${github.secret}` },
      'not json',
      { text: 7 },
      { text: JSON.stringify({ log: `x\n${github.secret}` }) },
    ];
    const input = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
    const { code, out } = await scan(['--jsonl'], `${input}\n\n`);
    expect(code).toBe(1);
    const answers = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { text?: string; redactions?: Record<string, number>; error?: string });
    expect(answers).toHaveLength(5);
    expect(answers[0]).toEqual({ text: 'nothing here', redactions: {} });
    expect(answers[1]!.redactions).toEqual({ github_token: 1 });
    expect(answers[1]!.text).toMatch(/\na \[REDACTED:github_token\]$/);
    expect(answers[2]!.error).toMatch(/JSON object with a string "text"/);
    expect(answers[3]!.error).toBeDefined();
    expect(answers[4]!.text).not.toContain(github.secret);
  });

  it('honours the configured guardrails: off prints the text as it is, secrets_allow leaves a fixture, --tool a tool’s own setting', async () => {
    const off = join(dir, 'off.yaml');
    writeFileSync(off, 'guardrails:\n  secrets: off\n  tools:\n    Vault: {secrets: redact}\n');
    const text = JSON.stringify({ text: `a ${github.secret}` });
    expect((await scan(['--jsonl'], text, { TOOLGATE_CONFIG: off })).out).toBe(
      `${JSON.stringify({ text: `a ${github.secret}`, redactions: {} })}\n`,
    );
    expect(JSON.parse((await scan(['--jsonl', '--tool', 'Vault'], text, { TOOLGATE_CONFIG: off })).out)).toMatchObject({
      redactions: { github_token: 1 },
    });
    const allow = join(dir, 'allow.yaml');
    writeFileSync(allow, `guardrails:\n  secrets_allow: ['^${github.secret.slice(0, 12)}']\n`);
    expect(JSON.parse((await scan(['--jsonl'], text, { TOOLGATE_CONFIG: allow })).out)).toEqual({
      text: `a ${github.secret}`,
      redactions: {},
    });
  });

  it('runs as a command of the CLI, JSON Lines in and out', async () => {
    const result = await new Promise<{ stdout: string; code: number }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli.ts', 'guardrails', 'scan', '--jsonl'],
        { cwd: ROOT, timeout: 120_000 },
        (err, stdout) => resolve({ stdout, code: err ? Number(err.code) : 0 }),
      );
      child.stdin!.end(`${JSON.stringify({ text: `k=${github.secret}` })}\n${JSON.stringify({ text: 'hello' })}\n`);
    });
    expect(result.code).toBe(0);
    const [first, second] = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { redactions: Record<string, number> });
    expect(first!.redactions).toEqual({ github_token: 1 });
    expect(second).toEqual({ text: 'hello', redactions: {} });
  }, 150_000);
});
