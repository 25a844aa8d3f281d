import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';

/** The built-in tools, their arguments as docs/tools.md names them, as a model sees them in GET /tools. */

const ARGUMENTS: Record<string, string[]> = {
  Read: ['path', 'offset', 'limit'],
  Write: ['path', 'content', 'expected_mtime_ms', 'expected_size_bytes'],
  Edit: ['path', 'old_string', 'new_string', 'replace_all', 'expected_mtime_ms', 'expected_size_bytes'],
  Glob: ['pattern', 'path'],
  Grep: ['pattern', 'path', 'glob', 'ignore_case', 'max_results'],
  LS: ['path'],
};

describe('built-in tools: names, arguments and results as a model sees them', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'lines.txt'), 'one\ntwo\nthree\nfour\n');
  });
  afterAll(() => t.close());

  it('exactly the six tools with exactly their documented arguments; Read, Glob, Grep and LS are read-only', async () => {
    const tools = (await t.app.inject({ method: 'GET', url: '/tools?format=mcp' })).json().tools;
    expect(Object.fromEntries(tools.map((x: any) => [x.name, Object.keys(x.inputSchema.properties).sort()]))).toEqual(
      Object.fromEntries(Object.entries(ARGUMENTS).map(([name, args]) => [name, [...args].sort()])),
    );
    expect(Object.fromEntries(tools.map((x: any) => [x.name, x.annotations.readOnlyHint]))).toEqual({
      Read: true,
      Glob: true,
      Grep: true,
      LS: true,
      Write: false,
      Edit: false,
    });
  });

  it('Read: offset is the first line, 1-based; text holds numbered lines; data holds file_mtime_ms and file_size_bytes', async () => {
    const { body } = await execute(t.app, [{ id: 'r', name: 'Read', arguments: { path: 'lines.txt', offset: 2, limit: 2 } }]);
    const result = body.results[0];
    expect(result.text.split('\n').slice(0, 2)).toEqual(['     2\ttwo', '     3\tthree']);
    expect(Object.keys(result.data).sort()).toEqual(['file_mtime_ms', 'file_size_bytes']);
    expect(result.data.file_size_bytes).toBe(19);
  });

  it('paths are relative to the workspace, and none may resolve outside it', async () => {
    const { body } = await execute(t.app, [
      { id: 'in', name: 'Read', arguments: { path: 'lines.txt' } },
      { id: 'up', name: 'Read', arguments: { path: '../lines.txt' } },
      { id: 'abs', name: 'Read', arguments: { path: '/etc/passwd' } },
      { id: 'ls', name: 'LS', arguments: { path: '..' } },
    ]);
    expect(body.results.map((r: any) => r.error?.code ?? r.status)).toEqual([
      'success',
      'PERMISSION_DENIED',
      'PERMISSION_DENIED',
      'PERMISSION_DENIED',
    ]);
  });
});
