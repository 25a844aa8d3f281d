/**
 * What the policy's check of every entry costs a walk: Grep over a
 * 10,000-file tree (about 1,100 directories, 10 levels at most, 20 lines a
 * file), with no rule for reading and with three (a prefix, a suffix at any
 * depth, one that also looks at the pattern), the two alternating.
 * `npx tsx bench/grep-walk.ts [--runs N]`. Reports wall time and the
 * process's CPU time per Grep (user + system), both of which move with what
 * else runs on the machine, then what does not: the system calls of one Grep
 * in each mode (strace, when it can attach), and the CPU time of the rule
 * tests alone, every entry of the tree judged as a walk judges it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readdir } from 'node:fs/promises';
import { createPolicy, type PolicyRuleSpec } from '../src/policy/index.js';
import { createBuiltinTools } from '../src/tools/builtin/index.js';
import { createWorkspace } from '../src/tools/workspace.js';
import type { Tool } from '../src/tools/tool.js';
import { StraceAttachError, straceMissing, syscallsDuring } from './shared/syscalls.js';
import { createEnvCredentials } from '../src/tools/credentials.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, files: { type: 'string', default: '10000' } } });
const runs = Number(values.runs);
const fileCount = Number(values.files);

/** A deterministic tree: each new entry goes into an earlier directory, a tenth of them directories. */
async function tree(root: string): Promise<number> {
  const dirs = [root];
  let seed = 1;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let files = 0; files < fileCount;) {
    const dir = dirs[Math.floor(next() * dirs.length)]!;
    if (next() < 0.1 && dir.split('/').length - root.split('/').length < 10) {
      const made = join(dir, `d${dirs.length}`);
      await mkdir(made);
      dirs.push(made);
    } else {
      await writeFile(join(dir, `f${files}.txt`), `line ${files} hello world\n`.repeat(20));
      files++;
    }
  }
  return dirs.length;
}

const RULES: PolicyRuleSpec[] = [
  { tool: '*', when: { path: '^secrets/' }, decision: 'deny' },
  { tool: 'Read', when: { path: '\\.env$' }, decision: 'ask' },
  { tool: 'Grep', when: { path: '^d7/', pattern: 'password' }, decision: 'deny' },
];

const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-grep-'));
const dirCount = await tree(root);
const grepOf = (rules: PolicyRuleSpec[]): Tool => createBuiltinTools(createPolicy(rules)).find((tool) => tool.name === 'Grep')!;
const modes = { 'no rule for reading': grepOf([]), 'three rules': grepOf(RULES) };
const signal = new AbortController().signal;
const ctx = {
  signal,
  aborted: false,
  workspace: createWorkspace(root),
  caller: { tenant: 'bench', keyId: 'bench', user: undefined },
  credentials: createEnvCredentials({}).for('test_tool'),
  sessionId: 'bench',
  callId: 'bench',
  deadline: Date.now() + 3_600_000,
  imageBytes: 5_242_880,
  fileLocks: { acquire: () => Promise.reject(new Error('no file locks')) },
  spill: () => Promise.reject(new Error('no spill')),
};
const samples: Record<string, { wall: number[]; cpu: number[] }> = {};
// A pattern no line holds: every file of the tree is read and searched.
const args = () => ({ pattern: 'nothing-matches-this', max_results: 1000 });

for (let i = 0; i < runs + 3; i++) {
  for (const [mode, grep] of Object.entries(modes)) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const output = await grep.run(args(), ctx);
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (output.text !== 'No matches.') throw new Error(`unexpected result: ${output.text.slice(0, 200)}`);
    // The first three of each warm the page cache and the JIT.
    if (i < 3) continue;
    (samples[mode] ??= { wall: [], cpu: [] }).wall.push(wall);
    samples[mode].cpu.push((used.user + used.system) / 1000);
  }
}
const syscalls: Record<string, number> = {};
if (!straceMissing()) {
  for (const [mode, grep] of Object.entries(modes)) {
    try {
      const counts = await syscallsDuring(process.pid, async () => void (await grep.run(args(), ctx)));
      syscalls[mode] = Object.values(counts).reduce((a, b) => a + b, 0);
    } catch (err) {
      if (!(err instanceof StraceAttachError)) throw err;
    }
  }
}
const entries = (await readdir(root, { recursive: true })).map(String);
const judge = createPolicy(RULES).entryJudge('Grep', args(), ['.'])!;
const judged = performance.now();
const cpuBefore = process.cpuUsage();
for (let round = 0; round < 20; round++) for (const entry of entries) judge(entry);
const judgeCpu = process.cpuUsage(cpuBefore);
const judgeWall = (performance.now() - judged) / 20;
await rm(root, { recursive: true, force: true });

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
console.log(`Grep over ${fileCount} files in ${dirCount} directories, ${runs} runs each (ms, median)`);
console.log('| rules | wall | CPU | system calls of one Grep |');
console.log('|---|---|---|---|');
for (const [mode, { wall, cpu }] of Object.entries(samples))
  console.log(`| ${mode} | ${median(wall).toFixed(1)} | ${median(cpu).toFixed(1)} | ${syscalls[mode] ?? 'n/a'} |`);
const perEntry = ((judgeCpu.user + judgeCpu.system) / 20 / entries.length).toFixed(2);
console.log(
  `\nThe three rules' tests alone: ${entries.length} entries judged in ${judgeWall.toFixed(1)} ms (${perEntry} µs CPU an entry).`,
);
