import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMISSION_CONSTANTS } from '../../../../src/state/admission-constants.js';
import { expandScript, luaSources, SCRIPTS } from '../../../../src/state/redis/scripts.js';

const LUA = new URL('../../../../src/state/redis/lua/', import.meta.url);

async function luaFiles(dir: URL): Promise<URL[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? luaFiles(new URL(`${e.name}/`, dir)) : Promise.resolve(e.name.endsWith('.lua') ? [new URL(e.name, dir)] : []),
    ),
  );
  return nested.flat();
}

describe('Redis scripts as loaded (house style: Lua with includes/)', () => {
  it('the admission constants in Lua are the TypeScript ones, written in by the loader and nowhere else', async () => {
    const names = Object.keys(ADMISSION_CONSTANTS);
    for (const file of await luaFiles(LUA)) {
      const text = await readFile(file, 'utf8');
      for (const name of names) expect(text, `${file.pathname} defines ${name} itself`).not.toMatch(new RegExp(`\\b${name}\\s*=`));
    }
    const admit = luaSources().admit;
    const defined = Object.fromEntries([...admit.matchAll(/^local (\w+) = (\d+)$/gm)].map(([, name, value]) => [name, Number(value)]));
    expect(defined).toEqual(ADMISSION_CONSTANTS);
  });

  it('every include is written in once per script, and no directive is left for Redis to see', () => {
    const sources = luaSources();
    for (const name of SCRIPTS) {
      const text = sources[name];
      expect(text, name).not.toMatch(/^---\s*@(include|constants)/m);
      const functions = [...text.matchAll(/^local function (\w+)/gm)].map(([, fn]) => fn);
      expect(functions, name).toEqual([...new Set(functions)]);
    }
    expect(sources.admit).toMatch(/^local function breaker_check\(/m);
    expect(sources.settle).toMatch(/^local function breaker_record\(/m);
  });
});

describe('expandScript', () => {
  let dir: string;
  const url = (path: string) => pathToFileURL(join(dir, path));

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-lua-'));
    await mkdir(join(dir, 'includes'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('resolves an include against the file it is in, `.lua` implied, nested includes too, each written once', async () => {
    await writeFile(join(dir, 'main.lua'), '--- @include "includes/a"\n--- @include "includes/b.lua"\nreturn a() + b()');
    await writeFile(join(dir, 'includes', 'a.lua'), '--- @include "shared"\nlocal function a() return shared end');
    await writeFile(join(dir, 'includes', 'b.lua'), '--- @include "shared"\nlocal function b() return shared end');
    await writeFile(join(dir, 'includes', 'shared.lua'), 'local shared = 1');
    expect(expandScript(url('main.lua'), {})).toBe(
      'local shared = 1\nlocal function a() return shared end\n\nlocal function b() return shared end\nreturn a() + b()',
    );
  });

  it('writes the constants once, where first asked for', async () => {
    await writeFile(join(dir, 'main.lua'), '--- @constants\n--- @include "includes/c"\nreturn ONE + TWO');
    await writeFile(join(dir, 'includes', 'c.lua'), '--- @constants\nlocal x = ONE');
    expect(expandScript(url('main.lua'), { ONE: 1, TWO: 2 })).toBe('local ONE = 1\nlocal TWO = 2\n\nlocal x = ONE\nreturn ONE + TWO');
  });

  it('fails on an include that is not there, rather than loading a script without it', async () => {
    await writeFile(join(dir, 'main.lua'), '--- @include "includes/missing"\nreturn 1');
    expect(() => expandScript(url('main.lua'), {})).toThrow(/missing\.lua/);
  });
});
