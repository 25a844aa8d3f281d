/**
 * What starting one Bash command costs, sandboxed and not: `true` run
 * through the tool (spawn, prlimit, sh, and with bubblewrap its namespaces
 * and mounts), many times each, the modes alternating so that a busy machine
 * weighs on both alike. `npx tsx bench/bash-start.ts [--runs N] [--files N]`;
 * as root, the workspace is given to nobody, as the tool's users would have it.
 * With --files the workspace holds that many files, ten to a folder, and the
 * policy has a rule for reading and one for writing, so the sandboxed mode
 * pays for the walk that turns rules into mounts (docs/bash.md).
 */
import { spawn } from 'node:child_process';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { configFrom } from '../src/config/load.js';
import { setUpBash } from '../src/tools/bash/index.js';
import { createPolicy } from '../src/policy/index.js';
import type { Tool } from '../src/tools/tool.js';
import { createWorkspace } from '../src/tools/workspace.js';
import { createEnvCredentials } from '../src/tools/credentials.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' }, files: { type: 'string', default: '0' } } });
const runs = Number(values.runs);
const files = Number(values.files);

const workspace = await mkdtemp(join(tmpdir(), 'toolgate-bench-bash-'));
const rules =
  files > 0
    ? [
        { tool: '*', when: { path: '^secrets/' }, decision: 'deny' as const },
        { tool: 'Write', when: { path: '^deploy/' }, decision: 'deny' as const },
      ]
    : [];
for (let i = 0; i < files; i++) {
  const folder = join(workspace, i < 10 ? 'secrets' : i < 20 ? 'deploy' : `src/m${Math.floor(i / 100)}/d${Math.floor(i / 10) % 10}`);
  if (i % 10 === 0) await mkdir(folder, { recursive: true });
  await writeFile(join(folder, `f${i}.ts`), `export const v${i} = ${i};\n`);
}
if (process.getuid?.() === 0) await chown(workspace, 65534, 65534);

function tool(sandbox: 'required' | 'none'): Tool {
  const config = configFrom({ builtins: { Bash: { enabled: true, sandbox } }, policy: { rules } });
  const setup = setUpBash(config.builtins.Bash, workspace, true, createPolicy(config.policy.rules));
  if (setup.problems.length > 0) throw new Error(setup.problems.join('\n'));
  return setup.tool;
}

/** The floor: /bin/true spawned straight, no tool, no prlimit, no shell. */
const bare = () =>
  new Promise<void>((resolve, reject) =>
    spawn('/bin/true', { stdio: 'ignore' })
      .once('error', reject)
      .once('exit', () => resolve()),
  );
const modes = { bare: null, none: tool('none'), bwrap: tool('required') };
const samples: Record<keyof typeof modes, number[]> = { bare: [], none: [], bwrap: [] };
const signal = new AbortController().signal;
const ws = createWorkspace(workspace);
const ctx = () => ({
  signal,
  aborted: false,
  workspace: ws,
  caller: { tenant: 'bench', keyId: 'bench', user: undefined },
  credentials: createEnvCredentials({}).for('test_tool'),
  sessionId: 'bench',
  callId: 'bench',
  deadline: Date.now() + 30_000,
  // `true` is read-only by its class: the permission gate's verdict, which the tool reads.
  readOnly: true,
  imageBytes: 5_242_880,
  fileLocks: { acquire: () => Promise.reject(new Error('no file locks')) },
  spill: () => Promise.reject(new Error('no spill')),
});

for (let i = 0; i < runs + 10; i++) {
  for (const mode of Object.keys(modes) as Array<keyof typeof modes>) {
    const started = performance.now();
    const bash = modes[mode];
    if (bash) {
      const output = await bash.run({ command: 'true' }, ctx());
      if (output.error) throw output.error;
    } else await bare();
    // The first ten of each are warm-up (page cache, JIT).
    if (i >= 10) samples[mode].push(performance.now() - started);
  }
}
await rm(workspace, { recursive: true, force: true });

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
console.log(`Bash start cost, \`true\`, ${runs} runs each, ${files} files in the workspace (ms)`);
console.log('| mode | mean | p50 | p95 | p99 |');
console.log('|---|---|---|---|---|');
for (const [mode, list] of Object.entries(samples)) {
  const sorted = [...list].sort((a, b) => a - b);
  const mean = list.reduce((a, b) => a + b, 0) / list.length;
  console.log(
    `| ${mode} | ${mean.toFixed(2)} | ${quantile(sorted, 0.5).toFixed(2)} | ${quantile(sorted, 0.95).toFixed(2)} | ${quantile(sorted, 0.99).toFixed(2)} |`,
  );
}
