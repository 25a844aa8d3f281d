/**
 * What the secret scanner costs on one large output (docs/guardrails.md):
 * (a) the streaming redactor alone over a log- and config-like text with fake
 * credentials of every kind, each placed across a 64 KiB chunk's edge (every
 * fourth across a 1 MiB edge); (b) a gateway from the build answering one
 * Bash `cat` of that text as a file, whose stdout is spilled as it streams,
 * guardrails on against off, the two alternating. Pinned like `npm run bench`:
 * the redactor, and each gateway, on one CPU, the runner on the others.
 * `npm run bench:guardrails -- [--runs N] [--mib N] [--no-pin]`
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type * as Guardrails from '../src/guardrails/index.js';
import { FAKE_SECRETS, NEAR_MISSES } from '../test/helpers/fake-secrets.js';
import { choosePinning, type Pinning } from './shared/pin.js';
import { startTarget, type Target } from './shared/targets.js';

const HELP = `npm run bench:guardrails -- [--runs N] [--mib N] [--no-pin]

  --runs N    timed runs of each measurement after one untimed, checked run (default 5); the median is shown, with the range
  --mib N     size of the output in MiB (default 20)
  --no-pin    every process on every CPU`;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    mib: { type: 'string', default: '20' },
    'no-pin': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const runs = Number(values.runs);
const MIB = 2 ** 20;
const bytes = Number(values.mib) * MIB;
/** What a file stream or a pipe hands over at a time. */
const CHUNK = 65_536;

const pinChoice = values['no-pin'] ? undefined : choosePinning();
if (typeof pinChoice === 'string') {
  console.error(`cannot pin: ${pinChoice}`);
  process.exit(2);
}
const pinning: Pinning | undefined = pinChoice;
/** Every thread of this process onto `cpus`; processes it starts later inherit them. */
function pinSelf(cpus: string): void {
  const done = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { encoding: 'utf8' });
  if (done.error || done.status !== 0) throw new Error(`taskset: ${done.stderr || done.error?.message}`);
}

/** A seeded generator, so every run scans the same text. */
let seed = 20_261_203;
const rand = (n: number) => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed % n;
};
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[rand(16)]).join('');
const two = (n: number) => String(n).padStart(2, '0');

/** One line of what a CI log, a service log or a config dump holds, near misses among them. */
function filler(i: number): string {
  const time = `2026-12-03T${two(8 + Math.floor(i / 360_000))}:${two(Math.floor(i / 6000) % 60)}:${two(Math.floor(i / 100) % 60)}.${String(i % 1000).padStart(3, '0')}Z`;
  switch (rand(10)) {
    case 0:
      return `${time} WARN  [scheduler] retry ${1 + rand(5)}/5 for job sync-${rand(100_000)}: connection reset by peer (db.internal:5432)`;
    case 1:
      return NEAR_MISSES[rand(NEAR_MISSES.length)]!;
    case 2:
      return ['LOG_LEVEL=info', 'spring.datasource.url=jdbc:postgresql://db.internal:5432/app', 'max_tokens: 4096', 'replicas: 3'][
        rand(4)
      ]!;
    case 3:
      return `    "integrity": "sha512-${Buffer.from(hex(48), 'hex').toString('base64')}",`;
    case 4:
      return `  at Object.handler (/srv/app/dist/routes/orders.js:${rand(400)}:${rand(80)}) commit ${hex(40)}`;
    default:
      return `${time} INFO  [worker-${rand(8)}] GET /api/v1/orders/${rand(1_000_000)} 200 ${rand(300)}ms trace=${hex(32)} user=${rand(50_000)}`;
  }
}

/** `size` bytes of filler lines, each fake credential on lines of its own straddling a chunk's (or a round's) edge. */
function buildText(size: number): Buffer {
  const placed = FAKE_SECRETS.map((secret, i) => {
    const unit = i % 4 === 0 ? MIB : CHUNK;
    const edge = Math.max(1, Math.floor(((i + 1) * size) / (FAKE_SECRETS.length + 1) / unit)) * unit;
    return { text: secret.text, at: edge - Math.floor(secret.text.length / 2) };
  }).sort((a, b) => a.at - b.at);
  const parts: string[] = [];
  let length = 0;
  for (let i = 0, next = 0; length < size; i++) {
    let line = `${filler(i)}\n`;
    const target = placed[next];
    if (target && length + line.length > target.at) {
      const pad = target.at - length;
      line = `${pad > 0 ? `${line.slice(0, pad - 1)}\n` : ''}${target.text}\n`;
      next++;
    }
    parts.push(line);
    length += line.length;
  }
  const text = parts.join('').slice(0, size);
  if (placed.some((p) => !text.includes(p.text))) throw new Error(`${size} bytes are too few for every fake credential`);
  return Buffer.from(text, 'latin1');
}

/** Every fake credential gone from `text`, or the bench stops: a fast scanner that misses is no result. */
function checkRedacted(what: string, text: string): void {
  const left = FAKE_SECRETS.filter((s) => text.includes(s.secret));
  if (left.length > 0) throw new Error(`${what}: ${left.map((s) => s.kind).join(', ')} came through`);
}

const status = (pid: number | 'self', field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** (a) redactStream over the text in 64 KiB chunks: time, CPU, and the peak RSS it added (the kernel's high-water mark, reset first). */
async function redactorAlone(source: Buffer): Promise<{ samples: Sample[]; peakBytes: number; redacted: number; redactedBytes: number }> {
  const { createSecretScanner, redactStream } = (await import(
    new URL('../dist/guardrails/index.js', import.meta.url).href
  )) as typeof Guardrails;
  const scanner = createSecretScanner([]);
  const chunks = async function* () {
    for (let at = 0; at < source.length; at += CHUNK) yield source.subarray(at, at + CHUNK);
  };
  const checked: Buffer[] = [];
  const counts: Guardrails.RedactionCounts = {};
  for await (const out of redactStream(scanner, chunks(), counts)) checked.push(out);
  const whole = Buffer.concat(checked).toString('latin1');
  checkRedacted('redactStream', whole);
  checked.length = 0;
  const samples: Sample[] = [];
  let peakBytes = 0;
  for (let run = 0; run < runs; run++) {
    let resetPeak = true;
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      resetPeak = false;
    }
    const before = status('self', 'VmRSS');
    const cpu = process.cpuUsage();
    const started = performance.now();
    let sent = 0;
    for await (const out of redactStream(scanner, chunks(), {})) sent += out.length;
    const { user, system } = process.cpuUsage(cpu);
    samples.push({ wallMs: performance.now() - started, cpuMs: (user + system) / 1000 });
    if (resetPeak) peakBytes = Math.max(peakBytes, status('self', 'VmHWM') - before);
    if (sent !== whole.length) throw new Error(`redactStream sent ${sent} bytes, not the ${whole.length} of the checked run`);
  }
  return { samples, peakBytes, redacted: Object.values(counts).reduce((a, b) => a + b, 0), redactedBytes: whole.length };
}

/** A call id of its own each time: a call id seen before would be answered from the stored result. */
let calls = 0;
const bashCall = () =>
  JSON.stringify({
    tool_calls: [
      { id: `call_cat_${calls++}`, type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command: 'cat big.log' }) } },
    ],
  });

interface BashResult {
  status: string;
  text: string;
  data?: { redactions?: Record<string, number>; stdout_spilled?: { url?: string } } & Record<string, unknown>;
}

/** One Bash call of `cat big.log`: its result, the client's wall time and the gateway's CPU time. */
async function catOnce(target: Target): Promise<{ result: BashResult; sample: Sample }> {
  const cpu = (await target.usage()).cpuUs;
  const started = performance.now();
  const response = await fetch(`${target.url}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: bashCall(),
  });
  const body = (await response.json()) as { results?: BashResult[] };
  const wallMs = performance.now() - started;
  const result = body.results?.[0];
  if (response.status !== 200 || !result || result.status === 'error') {
    throw new Error(`${target.name}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 400)}`);
  }
  return { result, sample: { wallMs, cpuMs: ((await target.usage()).cpuUs - cpu) / 1000 } };
}

/** Every `/outputs/` URL of a result, wherever the tool's data or the budget put it. */
const outputUrls = (value: unknown): string[] =>
  typeof value === 'string'
    ? value.startsWith('/outputs/')
      ? [value]
      : []
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(outputUrls)
      : [];

/** (b) the gateway with guardrails on and off, one Bash call each in turn; the first of each is checked, not timed. */
async function endToEnd(
  source: Buffer,
  redactedBytes: number,
): Promise<{ on: Sample[]; off: Sample[]; peak: Record<string, number>; spilled: number }> {
  const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-guardrails-'));
  await chmod(root, 0o711);
  const workspace = join(root, 'workspace');
  await mkdir(workspace);
  await writeFile(join(workspace, 'big.log'), source);
  // As root, Bash runs its commands as nobody, who must be able to read the file.
  if (process.getuid?.() === 0) for (const path of [workspace, join(workspace, 'big.log')]) await chown(path, 65534, 65534);
  const options = (name: string) => ({ workspace, spillDir: join(root, 'spill', name), logLevel: 'info', bash: true });
  const targets: Target[] = [];
  try {
    targets.push(await startTarget('memory', options('on'), pinning?.server));
    targets.push(await startTarget('no-guardrails', { ...options('off'), secretsOff: true }, pinning?.server));
    const samples = new Map<Target, Sample[]>(targets.map((t) => [t, []]));
    let spilled = 0;
    for (let run = 0; run <= runs; run++) {
      for (const target of run % 2 === 0 ? targets : [...targets].reverse()) {
        const { result, sample } = await catOnce(target);
        if (run > 0) {
          samples.get(target)!.push(sample);
          continue;
        }
        const urls = outputUrls(result);
        const whole = await Promise.all(urls.map(async (url) => Buffer.from(await (await fetch(`${target.url}${url}`)).arrayBuffer())));
        if (target === targets[0]) {
          // The spilled stdout is what the redactor alone made of the file: no other copy is as long.
          if (!whole.some((b) => b.length === redactedBytes)) throw new Error(`${target.name}: no spilled copy of ${redactedBytes} bytes`);
          checkRedacted('gateway', result.text + JSON.stringify(result.data) + whole.map((b) => b.toString('latin1')).join(''));
          spilled = source.length;
        } else if (!whole.some((b) => b.equals(source))) throw new Error(`${target.name}: no spilled copy is the file as it is`);
      }
    }
    const peak = Object.fromEntries(targets.map((t) => [t.name, status(t.pid, 'VmHWM')]));
    return { on: samples.get(targets[0]!)!, off: samples.get(targets[1]!)!, peak, spilled };
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    await rm(root, { recursive: true, force: true });
  }
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const range = (list: number[], digits: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `${median(list).toFixed(digits)} (${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
};
const row = (what: string, guard: string, size: number, samples: Sample[], memory: string) =>
  `| ${what} | ${guard} | ${range(
    samples.map((s) => size / MIB / (s.wallMs / 1000)),
    0,
  )} | ${range(
    samples.map((s) => s.wallMs),
    0,
  )} | ${range(
    samples.map((s) => s.cpuMs),
    0,
  )} | ${memory} |`;
const mib = (n: number) => (Number.isNaN(n) ? 'not measured' : `${(n / MIB).toFixed(0)} MiB`);

const source = buildText(bytes);
if (pinning) pinSelf(pinning.server);
const alone = await redactorAlone(source);
if (pinning) pinSelf(pinning.others);
const gateway = await endToEnd(source, alone.redactedBytes);

const where = pinning ? `pinned: redactor and gateways on CPU ${pinning.server}, the runner on ${pinning.others}` : 'not pinned';
console.log(
  `Secret scanner over a ${mib(source.length)} output with ${FAKE_SECRETS.length} fake credentials (${alone.redacted} values redacted), ${runs} runs each, ${where}; median (range)\n`,
);
console.log('| what | guardrails | MiB/s | wall ms | CPU ms | memory |');
console.log('|---|---|---:|---:|---:|---|');
console.log(row('redactStream alone, 64 KiB chunks', 'on', source.length, alone.samples, `+${mib(alone.peakBytes)} peak RSS`));
for (const [guard, samples, name] of [
  ['on', gateway.on, 'memory'],
  ['off', gateway.off, 'no-guardrails'],
] as const) {
  const memory = `${mib(gateway.peak[name]!)} peak RSS of the gateway`;
  console.log(row('gateway: one Bash `cat` call, stdout spilled', guard, gateway.spilled, samples, memory));
}
const [on, off] = [median(gateway.on.map((s) => s.cpuMs)), median(gateway.off.map((s) => s.cpuMs))];
console.log(
  `\nThe scanner's share of the call, in the gateway's CPU time: ${(on - off).toFixed(0)} ms (${((on / off - 1) * 100).toFixed(0)} %).`,
);
