import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openapiCheck } from '../../../src/catalog/openapi-check-command.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'toolgate-openapi-check-'));

/** Write a small OpenAPI 3.1 document with these paths; its path. */
function docFile(name: string, paths: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, servers: [{ url: 'https://api.example.com' }], paths }),
  );
  return file;
}

/** The command as the CLI runs it: its exit code and output. */
async function check(args: string[]) {
  const lines: string[] = [];
  const code = await openapiCheck(args, (line) => lines.push(line));
  return { code, out: lines.join('\n') };
}

/** The real CLI, through tsx. */
function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'openapi', 'check', ...args],
      { cwd: ROOT, timeout: 120_000 },
      (err, stdout) => resolve({ stdout, code: err ? Number(err.code) : 0 }),
    );
  });
}

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { [`l${i}`]: schema } };
  return schema;
}

describe('toolgate openapi check', () => {
  it('the CLI prints the tools, each operation left out with why, the size per format; exit 0', async () => {
    const { code, stdout } = await cli(['test/fixtures/openapi/petstore-3.1.json', '--base-url', 'https://pets.example.com/v2']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^test\/fixtures\/openapi\/petstore-3\.1\.json: 19 tools, 1 operations left out\ntools:\n {2}updatePet \(5 arguments\)\n {2}addPet \(5 arguments\)\n/,
    );
    expect(stdout).toMatch(/\nleft out:\n {2}uploadFile \(POST \/pet\/\{petId\}\/uploadImage\): its request body is /);
    for (const format of ['openai', 'openai\\+strict', 'responses', 'responses\\+strict', 'anthropic', 'gemini', 'mcp'])
      expect(stdout).toMatch(new RegExp(`\\n {2}${format}: \\d+\\n`));
    expect(stdout).not.toContain('limits:');
  });

  it('the CLI exits 1 for a document that gives no tool, saying why', async () => {
    const file = docFile('none.json', { '/t': { trace: { operationId: 't', responses: {} } } });
    const { code, stdout } = await cli([file, '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({
      tools: [],
      skipped: ['t (TRACE /t): TRACE is not sent by HTTP tools'],
      problems: ['no operation of the document can be a tool (1 left out, listed in the log)'],
    });
  });

  it("says which limits the catalog is over: a request's tool count, a tool sent without strict mode", async () => {
    const paths: Record<string, unknown> = {
      '/deep': {
        post: {
          operationId: 'deep',
          requestBody: { required: true, content: { 'application/json': { schema: nested(11) } } },
          responses: {},
        },
      },
    };
    for (let i = 0; i < 129; i++) paths[`/items/${i}`] = { get: { operationId: `item${i}`, responses: {} } };
    const { code, out } = await check([docFile('big.json', paths)]);
    expect(code).toBe(0);
    expect(out).toContain('130 tools, 0 operations left out');
    expect(out).toContain('\nlimits:\n  openai: 130 tools, over the 128 its API takes in one request (serve it with ?q= or toolsets)\n');
    expect(out).toContain("  openai: deep: sent without strict mode: over OpenAI's strict-mode limits: 11 levels of nesting (at most 10)");
  });

  it('a document by URL goes through the SSRF guard: a loopback one needs --allow-private-network', async () => {
    const { createServer } = await import('node:http');
    const body = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      servers: [{ url: '/api' }],
      paths: { '/a': { get: { operationId: 'a', responses: {} } } },
    });
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/openapi.json`;
    try {
      const refused = await check([url]);
      expect(refused.code).toBe(1);
      expect(refused.out).toMatch(
        /problems \(the gateway would refuse the document\):\n {2}spec http:\/\/127\.0\.0\.1:\d+\/openapi\.json refused by the SSRF guard/,
      );
      const allowed = await check([url, '--allow-private-network']);
      expect(allowed.out).toMatch(/: 1 tools, 0 operations left out\ntools:\n {2}a \(0 arguments\)/);
      expect(allowed.code).toBe(0);
    } finally {
      server.close();
    }
  });

  it('a usage error exits 2 with the usage', async () => {
    expect(await check([])).toEqual({ code: 2, out: expect.stringMatching(/^usage: toolgate openapi check <file-or-url>/) });
    expect((await check(['a.json', '--nope'])).code).toBe(2);
  });
});
