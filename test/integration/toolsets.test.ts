import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectConfig } from '../../src/config/load.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { prepare } from '../../src/startup.js';
import { createHttpDispatchers } from '../../src/tools/http/index.js';
import { asyncGateway, type AsyncGateway } from '../helpers/async.js';
import { slowTool } from '../helpers/tools.js';

/** Toolsets checked at start-up against every tool served, and held in a queued batch. */
const dispatchers = createHttpDispatchers();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-toolsets-'));
  await writeFile(
    join(dir, 'api.json'),
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/issues': { get: { operationId: 'list_issues', responses: {} } } },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

async function start(config: Record<string, unknown>) {
  const file = join(dir, 'toolgate.yaml');
  await writeFile(file, JSON.stringify({ workspace: join(dir, 'ws'), spill: { url: `file://${join(dir, 'spill')}` }, ...config }));
  return prepare(inspectConfig({}, file), {}, dispatchers, createMetrics({ processMetrics: false }), pino({ level: 'silent' }));
}

describe('toolsets at start-up', () => {
  const openapi = [{ name: 'api', spec: 'api.json', prefix: 'gh_', base_url: 'https://api.example.com' }];

  it('entries may name built-ins, globs and the tools of OpenAPI documents', async () => {
    const {
      registry,
      mcp,
      openapi: loads,
    } = await start({
      openapi_sources: openapi,
      toolsets: { coding: ['Read', 'Edit', 'gh_*'], issues: ['gh_list_issues'] },
      // Policy rules may name them too.
      policy: { rules: [{ tool: 'gh_list_*', decision: 'ask' }] },
    });
    // The document loads after start-up; its tools join when it is read.
    await loads.settled;
    expect(registry.get('gh_list_issues')).toBeDefined();
    await mcp.close();
  });

  it('an entry that names no tool, and a key set that is not defined, stop start-up, listed together', async () => {
    const problems = await start({
      openapi_sources: openapi,
      toolsets: { coding: ['Read', 'Reed', 'jira_*'] },
      keys: [{ id: 'k', sha256: 'a'.repeat(64), tenant: 't', scopes: ['execute'], toolsets: ['ops'] }],
    }).then(
      () => [],
      (err: { problems: string[] }) => err.problems,
    );
    expect(problems).toEqual([
      'keys.k.toolsets: "ops" is not a toolset; define it under toolsets, or use one of coding',
      'toolsets.coding.1: "Reed" names no tool and matches none as a glob; check the name (GET /tools lists them), or remove it',
      'toolsets.coding.2: "jira_*" names no tool and matches none as a glob; check the name (GET /tools lists them), or remove it',
    ]);
  });
});

describe("a queued batch keeps the request's toolset", () => {
  let g: AsyncGateway;
  beforeAll(async () => {
    g = await asyncGateway({
      config: { toolsets: { tickets: ['tickets_*'] } },
      tools: [slowTool('tickets_get', { safe: true, ms: 0 }), slowTool('deploy', { safe: false, ms: 0 })],
    });
    g.startWorkers();
  });
  afterAll(() => g.close());

  it("the worker answers UNKNOWN_TOOL for a call outside the set, naming the set's tools", async () => {
    const res = await g.app.inject({
      method: 'POST',
      url: '/execute?toolset=tickets',
      payload: {
        mode: 'async',
        tool_calls: [
          { id: 'c1', name: 'tickets_get', arguments: {} },
          { id: 'c2', name: 'deploy', arguments: {} },
        ],
      },
    });
    expect(res.statusCode).toBe(202);
    const done = await g.until(res.json().execution_id, ['completed']);
    expect(done.results[0].status).toBe('success');
    expect(done.results[1].error).toMatchObject({ code: 'UNKNOWN_TOOL', details: { available: ['tickets_get'] } });
  });
});
