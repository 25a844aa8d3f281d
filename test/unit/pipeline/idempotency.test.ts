import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { slowTool } from '../../helpers/tools.js';

/**
 * Toolsets meet replay and tool_search: a
 * request's `?toolset=` decides which calls may run, so no stored answer
 * taken under one set (or none) may stand in for a request held to another,
 * and tool_search called under a set finds only the set's tools.
 */
const runs = { runs: 0 };
const TOOLSETS = {
  github: ['gh_*', 'tool_search'],
  // The same side-effecting tool as github's, so that only the set's name differs.
  ops: ['gh_create_issue'],
  support: ['tickets_*', 'tool_search'],
};

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    builtins: false,
    tools: [
      slowTool('gh_create_issue', { safe: false, ms: 0, counter: runs }),
      slowTool('gh_list_issues', { safe: true, ms: 0 }),
      slowTool('tickets_close', { safe: false, ms: 0 }),
    ],
    config: { toolsets: TOOLSETS, builtins: { tool_search: { enabled: true } } },
  });
});
afterAll(() => t.close());

async function post(toolset: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const url = toolset === undefined ? '/execute' : `/execute?toolset=${toolset}`;
  const res = await t.app.inject({
    method: 'POST',
    url,
    payload: body as object,
    headers: { 'x-session-id': 'toolset-replay', ...headers },
  });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}
const create = (id = `call_${randomUUID()}`) => [{ id, name: 'gh_create_issue', arguments: { title: 'x' } }];

describe('Idempotency-Key under a toolset', () => {
  it('the toolset is part of what a retry must repeat: another set, or none, is IDEMPOTENCY_MISMATCH and nothing runs', async () => {
    const key = { 'idempotency-key': `k-${randomUUID()}` };
    const first = await post('github', create(), key);
    expect(first.body.results[0]).toMatchObject({ status: 'success', replayed: false });
    const before = runs.runs;
    for (const other of ['ops', 'support', undefined]) {
      const res = await post(other, create(), key);
      expect(res.status, `toolset ${other}`).toBe(422);
      expect(res.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
      expect(res.body.error.message).toMatch(/another toolset/);
    }
    expect(runs.runs).toBe(before);
    // The retry the key is for still replays.
    const retry = await post('github', create(), key);
    expect(retry.body.results[0]).toMatchObject({ status: 'success', replayed: true });
    expect(runs.runs).toBe(before);
  });

  it('a key first used without a set is not answered for a request held to one', async () => {
    const key = { 'idempotency-key': `k-${randomUUID()}` };
    expect((await post(undefined, create(), key)).body.results[0].replayed).toBe(false);
    expect((await post('github', create(), key)).body.error.code).toBe('IDEMPOTENCY_MISMATCH');
    expect((await post(undefined, create(), key)).body.results[0].replayed).toBe(true);
  });
});

describe('call-id replay under a toolset', () => {
  it('a call id replayed under a set without its tool is UNKNOWN_TOOL (lookup runs before replay), under one with it the stored result', async () => {
    const calls = create();
    await post('github', calls);
    const before = runs.runs;
    const outside = (await post('support', calls)).body.results[0];
    expect(outside).toMatchObject({
      status: 'error',
      replayed: false,
      error: { code: 'UNKNOWN_TOOL', details: { available: ['tickets_close', 'tool_search'] } },
    });
    // The same side effect asked for where the tool is allowed: it ran once, so it is replayed, not run again.
    expect((await post('ops', calls)).body.results[0]).toMatchObject({ status: 'success', replayed: true });
    expect((await post(undefined, calls)).body.results[0]).toMatchObject({ status: 'success', replayed: true });
    expect(runs.runs).toBe(before);
  });
});

describe('tool_search under POST /execute?toolset=', () => {
  const search = async (toolset: string | undefined) => {
    const res = await post(toolset, [
      { id: 'c1', name: 'tool_search', arguments: { query: 'issue tickets gh close create list', limit: 10 } },
    ]);
    return res.body.results[0];
  };

  it("finds only the set's tools", async () => {
    expect((await search(undefined)).data.tools.map((x: any) => x.function.name).sort()).toEqual([
      'gh_create_issue',
      'gh_list_issues',
      'tickets_close',
    ]);
    expect((await search('github')).data.tools.map((x: any) => x.function.name).sort()).toEqual(['gh_create_issue', 'gh_list_issues']);
    expect((await search('support')).data.tools.map((x: any) => x.function.name)).toEqual(['tickets_close']);
  });

  it('and on /mcp/{toolset}, through the same pipeline', async () => {
    const rpc = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'tool_search', arguments: { query: 'issue tickets gh close create list', limit: 10 } },
    };
    const res = await t.app.inject({
      method: 'POST',
      url: '/mcp/support',
      payload: rpc,
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.json().result.content[0].text).toBe('1 tool matches "issue tickets gh close create list": tickets_close.');
  });

  it('is a tool like any other: a set that does not name it does not offer it', async () => {
    expect((await search('ops')).error).toMatchObject({ code: 'UNKNOWN_TOOL', details: { available: ['gh_create_issue'] } });
  });
});
