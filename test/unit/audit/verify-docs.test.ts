import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import { callEntry, openTrail } from '../../suites/audit-store.suite.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function run(file: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, timeout: 120_000 }, (err, stdout) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout }),
    );
  });
}

/** The Python checker docs/audit.md gives, as written there. */
function snippet(): string {
  const page = readFileSync(join(ROOT, 'docs/audit.md'), 'utf8');
  const block = page.split('<!-- audit-verify-python:start -->')[1]?.split('<!-- audit-verify-python:end -->')[0];
  const code = /```python\n([\s\S]*?)```/.exec(block ?? '')?.[1];
  if (!code) throw new Error('docs/audit.md has no Python checker between its markers');
  return code;
}

describe('a trail is verified by toolgate audit verify, and by the Python lines docs/audit.md gives', { timeout: 150_000 }, () => {
  let dir: string;
  let script: string;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-'));
    script = join(dir, 'verify.py');
    writeFileSync(script, snippet());
    const trail = await openTrail(createFileAuditStore({ dir: join(dir, 'trail'), rotateBytes: 2_048 }), 'host-a');
    for (let i = 1; i <= 12; i++)
      await trail.record(callEntry(i, { arguments: { path: `f${i}.txt`, text: 'é ✓ 🙂 "q" \\ \u0001 \u2028' } }), true);
    await trail.close();
    file = join(dir, 'trail', 'host-a', '000000000001.jsonl');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an intact trail: both exit 0', async () => {
    expect(await run('python3', [script, join(dir, 'trail')])).toEqual({ code: 0, stdout: 'chain host-a: 12 records, ok\n' });
    const cli = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'audit', 'verify', '--url', `file://${join(dir, 'trail')}`]);
    expect(cli).toEqual({ code: 0, stdout: 'chain host-a: 12 records, ok\n' });
  });

  it('one changed byte: both exit 1 naming the record', async () => {
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('f2.txt', 'f7.txt'));
    try {
      const python = await run('python3', [script, join(dir, 'trail')]);
      expect(python.code).toBe(1);
      expect(python.stdout).toMatch(/record 2 was changed/);
      const cli = await run(process.execPath, [
        '--import',
        'tsx',
        'src/cli.ts',
        'audit',
        'verify',
        '--url',
        `file://${join(dir, 'trail')}`,
      ]);
      expect(cli.code).toBe(1);
      expect(cli.stdout).toMatch(/chain host-a: FAILED after 1 good records: 000000000001\.jsonl line 2: record 2 was changed/);
    } finally {
      writeFileSync(file, original);
    }
  });
});
