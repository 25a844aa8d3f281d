import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { waitFor } from '../../helpers/redis.js';
import { slowTool } from '../../helpers/tools.js';
import { Proc, requireBinary } from './stack.js';

/**
 * The compose stack's load balancer, docker/haproxy/haproxy.cfg,
 * run by Debian's haproxy in front of two live gateways, with only the
 * addresses replaced (loopback ports for the compose service names, no
 * Docker DNS). The README's curl examples answer through it; a replica whose
 * /readyz fails takes no requests; least connections sends a request past a
 * replica that is busy.
 */

const execFileAsync = promisify(execFile);
const CFG = new URL('../../../docker/haproxy/haproxy.cfg', import.meta.url);
const README = new URL('../../../README.md', import.meta.url);
// HAProxy checks every 2 s and needs 2 results to change its mind.
const SWITCH_MS = 15_000;

let scratch: string;
let haproxy: Proc | undefined;
let lb: string;
const replicas: Record<'a' | 'b', TestApp> = {} as Record<'a' | 'b', TestApp>;
/** Runs of the slow tool on each replica. */
const slowRuns = { a: { runs: 0 }, b: { runs: 0 } };

/** The repository's haproxy.cfg with the compose names and ports replaced by loopback addresses. */
async function renderConfig(ports: Record<string, number>, listen: number): Promise<string> {
  let cfg = await readFile(CFG, 'utf8');
  cfg = cfg.replace(/^resolvers docker\n(?:[ \t]+.*\n)+/m, '').replace(' resolvers docker', '');
  cfg = cfg.replace(/^(\s+bind) :8080$/m, `$1 127.0.0.1:${listen}`);
  for (const [name, port] of Object.entries(ports)) cfg = cfg.replace(`server ${name} ${name}:8080`, `server ${name} 127.0.0.1:${port}`);
  if (/toolgate-[ab]:8080|resolvers/.test(cfg))
    throw new Error(`haproxy.cfg changed shape; the test no longer replaces every address:\n${cfg}`);
  const path = join(scratch, 'haproxy.cfg');
  await writeFile(path, cfg);
  return path;
}

/** Requests each replica answered on `route`, from its own request log. */
function served(route: string): { a: number; b: number } {
  const count = (t: TestApp) => t.logs.filter((l) => l.msg === 'request completed' && l.route === route).length;
  return { a: count(replicas.a), b: count(replicas.b) };
}

beforeAll(async () => {
  const binary = requireBinary('haproxy');
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-lb-'));
  const workspace = join(scratch, 'workspace');
  await mkdir(workspace);
  for (const name of ['a', 'b'] as const) {
    replicas[name] = await buildTestApp({ workspace, tools: [slowTool('Slow', { safe: true, ms: 4_000, counter: slowRuns[name] })] });
    await replicas[name].app.listen({ host: '127.0.0.1', port: 0 });
  }
  const port = (t: TestApp) => (t.app.server.address() as { port: number }).port;
  const listen = await freePort();
  const cfg = await renderConfig({ 'toolgate-a': port(replicas.a), 'toolgate-b': port(replicas.b) }, listen);
  const check = spawnSync(binary, ['-c', '-f', cfg], { encoding: 'utf8' });
  expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  haproxy = new Proc('haproxy', spawn(binary, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] }));
  await haproxy.listening(listen);
  lb = `http://127.0.0.1:${listen}`;
  // Both replicas in rotation: their /readyz was checked.
  await waitFor('both replicas checked', async () => served('/readyz').a > 0 && served('/readyz').b > 0, SWITCH_MS);
}, 60_000);

afterAll(async () => {
  await haproxy?.kill();
  for (const t of Object.values(replicas)) await t.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('docker/haproxy/haproxy.cfg in front of two replicas', () => {
  it('haproxy accepts the repository file as it is (the compose names unresolved here)', () => {
    const check = spawnSync(requireBinary('haproxy'), ['-c', '-f', CFG.pathname], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  });

  it("the README's curl examples answer through the load balancer's port", async () => {
    const readme = await readFile(README, 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((b) => b.includes('curl -s localhost:8080/execute'));
    expect(blocks).toHaveLength(1);
    // Asynchronously: the replicas answer from this process's event loop.
    const run = await execFileAsync('sh', ['-c', blocks[0]!.replaceAll('localhost:8080', lb.slice('http://'.length))], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stdout).toContain('{"tools":[{"type":"function"');
    expect(run.stdout).toContain('"tool_call_id":"call_1","name":"Write","status":"success"');
    // call_2's own status is the pipeline's, not the load balancer's: here, that the answer came through whole.
    expect(run.stdout).toContain('"tool_call_id":"call_2","name":"Read"');
  });

  it('least connections: while one replica holds a slow batch, the next requests go to the other', async () => {
    const slow = fetch(`${lb}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_calls: [{ id: 's1', name: 'Slow', arguments: {} }] }),
    });
    await waitFor('the slow call started', async () => slowRuns.a.runs + slowRuns.b.runs === 1, 5_000);
    const busy = slowRuns.a.runs === 1 ? 'a' : 'b';
    const other = busy === 'a' ? 'b' : 'a';
    expect(await roundOf(4)).toEqual({ [busy]: 0, [other]: 4 });
    expect((await slow).status).toBe(200);
  }, 30_000);

  it('a replica whose /readyz fails takes no requests, and takes them again once ready', async () => {
    const ping = replicas.b.state.ping.bind(replicas.b.state);
    replicas.b.state.ping = async () => {
      throw new Error('state store away');
    };
    try {
      await waitFor('b out of rotation', async () => (await roundOf(6)).b === 0, SWITCH_MS);
      expect(await roundOf(6)).toEqual({ a: 6, b: 0 });
    } finally {
      replicas.b.state.ping = ping;
    }
    await waitFor('b back in rotation', async () => (await roundOf(6)).b > 0, SWITCH_MS);
  }, 60_000);
});

/** `n` sequential GET /tools through the load balancer, counted by the replica that answered. */
async function roundOf(n: number): Promise<{ a: number; b: number }> {
  const before = served('/tools');
  for (let i = 0; i < n; i++) await fetch(`${lb}/tools`);
  const after = served('/tools');
  return { a: after.a - before.a, b: after.b - before.b };
}
