import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/redis-global-setup.js';
import { accepts } from '../helpers/redis.js';

// Each step alone on a loaded two-core machine: the pack is one full TypeScript build, the install an offline `npm ci`.
const STEP_MS = 120_000;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What a build and a pack read, copied so that neither touches the checkout's dist/. */
const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'docs', 'scripts', 'src'];
const DEV_ONLY = ['typescript', 'tsx', 'vitest', 'eslint', '@modelcontextprotocol/conformance', '@modelcontextprotocol/server-filesystem'];
const NO_CACHE_HINT =
  "npm's cache lacks a package of package-lock.json: run `npm ci` in the checkout (it fills the cache this test installs from, never asking a registry), then this test again";

let scratch: string;
let project: string;
/** The file `npm pack` wrote, which the install steps take. */
let tarball: string | undefined;
/** Processes started from the project folder, whatever their parent: what a stop must leave none of. */
const runningIn = (dir: string): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === dir;
      } catch {
        return false;
      }
    })
    .map(Number);

/** npm_config_cache: npm exports the cache it runs with to its scripts (`npm test`), the one `npm ci` filled; a user may set it too. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const base = Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'npm_config_cache'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
  );
  return { ...base, ...extra };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: env(extra), timeout: STEP_MS }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

async function answers(url: string, deadlineMs: number): Promise<boolean> {
  for (const end = Date.now() + deadlineMs; Date.now() < end; await sleep(200)) {
    if (
      await fetch(url).then(
        (res) => res.ok,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** Every file under dir with its modification time in nanoseconds. */
function stamps(dir: string): Record<string, bigint> {
  return Object.fromEntries(
    (readdirSync(dir, { recursive: true }) as string[]).sort().map((name) => [name, statSync(join(dir, name), { bigint: true }).mtimeNs]),
  );
}

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-package-')));
  project = join(scratch, 'project');
  for (const name of SOURCES) cpSync(join(ROOT, name), join(project, name), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
});

afterAll(() => {
  for (const pid of runningIn(project)) process.kill(pid, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The package installs and runs like a Node tool. The steps run in order: the pack makes the first build, the install takes its tarball.
 */
describe('the npm package', { timeout: STEP_MS }, () => {
  it("npm pack builds dist/ itself and packs the compiled code, its Lua scripts, the console's files and the docs/ pages only", async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], project);
    expect(packed.code, packed.stderr).toBe(0);
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: Array<{ path: string }> }];
    const paths = files.map((f) => f.path);
    // The compiled code, the Lua scripts, the console's files and the secret rule file (with its license and provenance) beside it, and
    // the docs/ pages the README links to; no sources, maps or build state.
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'docs/configuration.md',
        'dist/cli.js',
        'dist/server.js',
        'dist/state/redis/lua/admit.lua',
        'dist/console/static/index.html',
      ]),
    );
    const docs = readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`);
    const built =
      /^dist\/.+\.(js|lua)$|^dist\/console\/static\/[a-z]+\.(css|html)$|^dist\/guardrails\/vendor\/gitleaks\/(LICENSE|gitleaks\.toml|source\.json)$/;
    expect(paths.filter((p) => !built.test(p)).sort()).toEqual(['README.md', ...docs, 'package.json'].sort());
    tarball = join(scratch, filename);
  });

  it('installed from the tarball, offline, with the runtime dependencies only: toolgate runs --help, keys create and serve', async () => {
    expect(tarball, 'the pack step failed').toBeDefined();
    // The tarball unpacked with the repository's lockfile beside it (a tarball carries none), installed as `npm ci --omit=dev`
    // installs it: the locked versions, every one from npm's cache (--offline: a registry is never asked), then linked into a
    // prefix as `npm install -g` of a folder does, which puts the `toolgate` command in its bin/.
    const unpacked = join(scratch, 'unpacked');
    mkdirSync(unpacked);
    const untarred = await run('tar', ['-xzf', tarball!, '-C', unpacked], scratch);
    expect(untarred.code, untarred.stderr).toBe(0);
    const pkg = join(unpacked, 'package');
    cpSync(join(ROOT, 'package-lock.json'), join(pkg, 'package-lock.json'));
    const deps = await run('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], pkg);
    expect(deps.code, /ENOTCACHED/.test(deps.stderr) ? `${NO_CACHE_HINT}\n${deps.stderr}` : deps.stderr).toBe(0);
    for (const dev of DEV_ONLY) expect(() => statSync(join(pkg, 'node_modules', dev)), dev).toThrow();
    expect(statSync(join(pkg, 'node_modules', 'fastify')).isDirectory()).toBe(true);
    const prefix = join(scratch, 'prefix');
    const linked = await run('npm', ['install', '-g', '--offline', '--prefix', prefix, '--no-audit', '--no-fund', pkg], scratch);
    expect(linked.code, linked.stderr).toBe(0);

    const toolgate = join(prefix, 'bin', 'toolgate');
    const help = await run(toolgate, ['--help'], scratch);
    expect(help).toMatchObject({ code: 0, stderr: expect.stringContaining('toolgate keys create --tenant T') });
    const created = await run(toolgate, ['keys', 'create', '--tenant', 'acme'], scratch);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^ {2}tg_[A-Za-z0-9_-]{43}$/m);

    // Serving on the Redis store reads the Lua scripts from the installed dist/; a deprecated Node API would throw.
    const port = await freePort();
    const server = spawn(toolgate, ['serve'], {
      cwd: scratch,
      env: env({
        PORT: String(port),
        REDIS_URL: inject('redisUrl'),
        TOOLGATE_REDIS_PREFIX: `pkg-${port}:`,
        TOOLGATE_WORKSPACE: join(scratch, 'ws'),
        TOOLGATE_SPILL_URL: pathToFileURL(join(scratch, 'spill')).href,
        NODE_OPTIONS: '--throw-deprecation',
      }),
      stdio: 'ignore',
    });
    const stopped = new Promise((resolve) => server.once('exit', resolve));
    try {
      expect(await answers(`http://127.0.0.1:${port}/readyz`, 60_000)).toBe(true);
      // The console's page and assets are read from the installed dist/ too.
      for (const asset of ['console', 'console/console.js', 'console/console.css']) {
        expect((await fetch(`http://127.0.0.1:${port}/${asset}`)).status, asset).toBe(200);
      }
    } finally {
      server.kill('SIGTERM');
      await stopped;
    }
  });

  it('a build on an unchanged tree rewrites nothing in dist/', async () => {
    const before = stamps(join(project, 'dist'));
    expect(Object.keys(before)).toContain('cli.js');
    const built = await run('npm', ['run', 'build'], project);
    expect(built.code, built.stderr).toBe(0);
    expect(stamps(join(project, 'dist'))).toEqual(before);
  });

  it('SIGTERM to the npm start process stops the server: the port closes and nothing it started keeps running', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: project,
      env: env({
        PORT: String(port),
        TOOLGATE_WORKSPACE: join(scratch, 'start-ws'),
        TOOLGATE_SPILL_URL: pathToFileURL(join(scratch, 'start-spill')).href,
      }),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    expect(await answers(`http://127.0.0.1:${port}/healthz`, 90_000)).toBe(true);

    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The server may still be finishing its shutdown when npm has exited.
    for (const end = Date.now() + 10_000; Date.now() < end && (runningIn(project).length > 0 || (await accepts(port)));) await sleep(200);
    expect(await accepts(port)).toBe(false);
    expect(runningIn(project)).toEqual([]);
  });
});
