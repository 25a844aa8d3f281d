import { readFile } from 'node:fs/promises';
import { STAGES, stageTimes } from './stages.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Row {
  name: string;
  ms: number;
  share: number;
}

/** Where a frame's code lives: toolgate's own, a package, Node itself, or V8's pseudo-frames. */
function category(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/dist/') || url.includes('/src/')) return 'toolgate';
  if (url.includes('/bench/')) return 'bench';
  return url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^file:\/\/.*?\/(node_modules|dist|src|bench)\//, '$1/');
  return `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim();
}

function top(totals: Map<string, number>, all: number, count: number): Row[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, ms: us / 1000, share: us / all }));
}

/**
 * Self time per stage of a request (see stages.ts) in microseconds per
 * request, per function and per code location, and inclusive time of
 * toolgate's own functions (a function counted once per stack, so recursion
 * does not inflate it), from a `node --cpu-prof` profile of a run that
 * answered `requests` requests and used `cpuUsPerRequest` of process CPU time.
 */
export async function summarizeProfile(file: string, requests: number, cpuUsPerRequest: number, count = 25): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const all = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);

  const selfByFunction = new Map<string, number>();
  const selfByCategory = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const name = frameName(node);
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + us);
    const where = category(node.callFrame.url, node.callFrame.functionName);
    selfByCategory.set(where, (selfByCategory.get(where) ?? 0) + us);
  }

  const inclusive = new Map<string, number>();
  const onStack = new Map<string, number>();
  const subtree = (node: ProfileNode): number => {
    const name = frameName(node);
    const ours = category(node.callFrame.url, node.callFrame.functionName) === 'toolgate';
    if (ours) onStack.set(name, (onStack.get(name) ?? 0) + 1);
    let us = self.get(node.id) ?? 0;
    for (const child of node.children ?? []) us += subtree(byId.get(child)!);
    if (ours) {
      const depth = onStack.get(name)! - 1;
      onStack.set(name, depth);
      if (depth === 0) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
    return us;
  };
  subtree(profile.nodes[0]!);

  const fmt = (rows: Row[]) =>
    rows.map((r) => `  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`);
  const stages = stageTimes(profile.nodes, self);
  // What the bench itself did in the target (the profiler stopping, IPC answers) is not the server's work.
  const busy = all - idle - (stages.get('bench harness')?.total ?? 0);
  const perRequest = (us: number) => (us / requests).toFixed(1).padStart(7);
  return [
    `${(all / 1e6).toFixed(1)} s sampled, ${((idle / all) * 100).toFixed(1)}% idle; shares below are of the ${(busy / 1e6).toFixed(1)} s busy.`,
    '',
    `Main thread, µs per request by stage (${requests} requests; ${perRequest(busy).trim()} µs busy per request on the main thread, ` +
      `${Number.isNaN(cpuUsPerRequest) ? '–' : cpuUsPerRequest.toFixed(1)} µs of process CPU time, every thread):`,
    ...STAGES.filter((stage) => stages.has(stage)).map((stage) => {
      const { total: us, functions } = stages.get(stage)!;
      const most = [...functions].sort((a, b) => b[1] - a[1]).slice(0, 3);
      return `  ${perRequest(us)} µs  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${stage}: ${most.map(([name, t]) => `${name} ${(t / requests).toFixed(1)}`).join(', ')}`;
    }),
    '',
    'Self time by code location:',
    ...fmt(top(new Map([...selfByCategory].filter(([k]) => k !== '(idle)')), busy, 15)),
    '',
    `Top ${count} functions by self time:`,
    ...fmt(top(new Map([...selfByFunction].filter(([k]) => !k.startsWith('(idle)'))), busy, count)),
    '',
    `Top ${count} toolgate functions by inclusive time:`,
    ...fmt(top(inclusive, busy, count)),
  ].join('\n');
}

interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * Bytes allocated per request, by stage (stages.ts) and by function, from a
 * sampling heap profile that kept the objects collected since (so it counts
 * every allocation, not what is alive at the end) of a run of `requests`
 * requests.
 */
export async function summarizeAllocations(file: string, requests: number, count = 25): Promise<string> {
  const { head } = JSON.parse(await readFile(file, 'utf8')) as { head: HeapNode };
  const nodes: ProfileNode[] = [];
  const self = new Map<number, number>();
  const flatten = (node: HeapNode): void => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((c) => c.id) });
    self.set(node.id, node.selfSize);
    node.children.forEach(flatten);
  };
  flatten(head);
  const all = [...self.values()].reduce((a, b) => a + b, 0);
  const stages = stageTimes(nodes, self);
  const bytes = (n: number) => (n / requests).toFixed(0).padStart(7);
  const byFunction = new Map<string, number>();
  for (const node of nodes) byFunction.set(frameName(node), (byFunction.get(frameName(node)) ?? 0) + self.get(node.id)!);
  return [
    `${bytes(all).trim()} bytes allocated per request on the JS heap (${requests} requests), by stage:`,
    ...STAGES.filter((stage) => stages.has(stage)).map((stage) => {
      const { total: us, functions } = stages.get(stage)!;
      const most = [...functions].sort((a, b) => b[1] - a[1]).slice(0, 3);
      return `  ${bytes(us)} B  ${stage}: ${most.map(([name, b]) => `${name} ${(b / requests).toFixed(0)}`).join(', ')}`;
    }),
    '',
    `Top ${count} functions by bytes allocated per request:`,
    ...[...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, b]) => `  ${bytes(b)} B  ${name}`),
  ].join('\n');
}
