import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/redis-global-setup.js';
import { makeWorkspace, removeAll } from '../bash/helpers.js';
import { toolgate, type Proc } from '../ops/stack.js';

/**
 * Hostile pass through POST /execute of a real gateway process, Bash on,
 * with a secret in its environment: each command below ran, wrote or read
 * that environment without an approval before ALLOW became a positive list
 * (or was ASK where it is DENY), and the last rows were found once it was
 * one. None of them runs now, in either sandbox mode: each answers
 * APPROVAL_REQUIRED or PERMISSION_DENIED, nothing appears in the workspace,
 * and no answer holds the secret.
 */
const ASK = [
  'jobs -x touch pwned1',
  'declare a=1; touch pwned2',
  "declare 'a[$(touch pwned3)]=1'",
  "sed p a.txt -e '1e touch pwned4'",
  'sed p a.txt -f x.sed',
  "echo x | sed ':a e touch pwned5'",
  "git grep --open='touch pwned6;' -e hello",
  'xxd --revert -pl hex.txt pwned7',
  'xxd -bl a.txt pwned8',
  'cat /pro[c]/$PPID/envi*',
  'grep -ra HOSTILE_CANARY /dev/fd/../..',
  'wc --files0-from=/dev/fd/../../$PPID/envi*',
  'sort -uo pwned9 a.txt',
  'sort a.txt --out=pwned10',
  'uniq a.txt pwned11',
  'git log --output=pwned12 -1',
  'find . -name a.txt -fprint pwned13',
  'awk \'{print > "pwned14"}\' a.txt',
  'LC_ALL=C touch pwned15',
  'time -o pwned16 ls',
  'taskset 1 ls',
  'find . -exec env -u + touch pwned25 \\;',
  'awk \'BEGIN{print ENVIRON["HOSTILE_CANARY"]}\'',
];
const DENY = [
  "printf -vPS4 '$(touch pwned20)'; set -x; true",
  "declare 'PS4=$(touch pwned21)'; set -x; true",
  "IFS= read -raPS4 <<< '$(touch pwned22)'; set -x; true",
  'printf -vBASH_CMDS[ls] /usr/bin/touch; ls pwned23',
  'GCONV_PATH=./gc git log --encoding=EVIL -1',
  "env --s='touch pwned24'",
  'prlimit touch pwned26 ; rm -f x',
  "taskset 1 bash -c 'touch pwned27'",
  "rbash -c 'touch pwned28'",
  'cat /proc/$PPID/environ',
  'cat /dev/stdin/../../../$PPID/environ',
  "wc --files0-from=/dev/fd/../../$PPID/env''iron",
  "grep -f/proc/$PPID/env''iron -r .",
  'ps eww',
  // A bare `environ` word is refused in both tiers (a process's environment is never a workspace file).
  "cd /dev/fd/../../$PPID && tr '\\0' '\\n' < environ",
  'env -C /proc/$PPID cat environ',
];

describe.each(['none', 'required'])("sandbox: %s: the review's commands and their kin never run unasked", (sandbox) => {
  let workspace: string;
  let scratch: string;
  let gateway: Proc;
  let port: number;
  let results: Array<{ tool_call_id: string; status: string; text: string; error?: { code: string } }>;

  beforeAll(async () => {
    workspace = await makeWorkspace();
    await writeFile(join(workspace, 'a.txt'), 'hello world\n');
    await writeFile(join(workspace, 'hex.txt'), '68656c6c6f\n');
    await writeFile(join(workspace, 'x.sed'), '1e touch pwnedX\n');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    // The gateway's own files (its config, spill store, data) live outside the workspace.
    scratch = await mkdtemp(join(tmpdir(), 'toolgate-hostile-bash-'));
    const config = join(scratch, 'config.json');
    await writeFile(config, JSON.stringify({ allow_unauthenticated: true, builtins: { Bash: { enabled: true, sandbox } } }));
    port = await freePort();
    gateway = toolgate('gateway', 'serve', scratch, {
      PORT: String(port),
      HOST: '127.0.0.1',
      TOOLGATE_CONFIG: config,
      TOOLGATE_WORKSPACE: workspace,
      TOOLGATE_SPILL_URL: `file://${join(scratch, 'spill')}`,
      HOSTILE_CANARY: 'canary-7731-secret',
    });
    await gateway.listening(port);
    const calls = [...ASK, ...DENY].map((command, i) => ({ id: `h${i}`, name: 'Bash', arguments: { command } }));
    const response = await fetch(`http://127.0.0.1:${port}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(calls),
    });
    results = ((await response.json()) as { results: typeof results }).results;
  }, 120_000);

  afterAll(async () => {
    await gateway?.kill();
    await removeAll(workspace, scratch);
  });

  it.each(ASK.map((command, i) => [command, i] as const))('%s asks first', (_command, i) => {
    expect(results[i]!.error?.code).toBe('APPROVAL_REQUIRED');
  });

  it.each(DENY.map((command, i) => [command, ASK.length + i] as const))('%s is refused', (_command, i) => {
    expect(results[i]!.error?.code).toBe('PERMISSION_DENIED');
  });

  it('nothing was written, and no answer holds the secret', async () => {
    expect((await readdir(workspace)).sort()).toEqual(['.git', 'a.txt', 'hex.txt', 'x.sed']);
    expect(JSON.stringify(results)).not.toContain('canary-7731');
  });
});
