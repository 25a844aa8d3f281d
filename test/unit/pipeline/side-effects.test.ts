import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import { hasSideEffects } from '../../../src/pipeline/side-effects.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { plannedCall } from '../../helpers/gates.js';
import { slowTool } from '../../helpers/tools.js';
import { openTrail } from '../../suites/audit-store.suite.js';

const call = (id: string, name: string) => ({ id, name, arguments: {} });

/** What each test leaves, undone after it, last first. */
const leftovers: Array<() => unknown> = [];
afterEach(async () => {
  for (const undo of leftovers.splice(0).reverse()) await undo();
});

async function app(options: Parameters<typeof buildTestApp>[0]): Promise<TestApp> {
  const built = await buildTestApp(options);
  leftovers.push(() => built.close());
  return built;
}
describe('side effects are declared apart from concurrency', () => {
  it('a tool has side effects when it says so, else when it is not concurrency-safe', () => {
    const entry = (more: { concurrencySafe: boolean; sideEffects?: boolean }) => plannedCall({ name: 'T', ...more }).entry!;
    expect(hasSideEffects(entry({ concurrencySafe: false }))).toBe(true);
    expect(hasSideEffects(entry({ concurrencySafe: true }))).toBe(false);
    expect(hasSideEffects(entry({ concurrencySafe: true, sideEffects: true }))).toBe(true);
    expect(hasSideEffects(entry({ concurrencySafe: false, sideEffects: false }))).toBe(false);
  });

  it('a concurrency-safe tool with side effects keeps call-id replay and its durable audit record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-'));
    leftovers.push(() => rmSync(dir, { recursive: true, force: true }));
    const trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 1 << 20 }));
    leftovers.push(() => trail.close());
    const record = vi.spyOn(trail, 'record');
    const posts = { runs: 0 };
    const reads = { runs: 0 };
    const post: ReturnType<typeof slowTool> = { ...slowTool('Post', { safe: true, ms: 1, counter: posts }), sideEffects: true };
    const t = await app({ builtins: false, audit: trail, tools: [post, slowTool('Lookup', { safe: true, ms: 1, counter: reads })] });
    for (let i = 0; i < 2; i++) {
      const { body } = await execute(t.app, { session_id: 's', tool_calls: [call('p1', 'Post'), call('l1', 'Lookup')] });
      expect(body.results.map((r: { replayed: boolean }) => r.replayed)).toEqual([i === 1, false]);
    }
    expect([posts.runs, reads.runs]).toEqual([1, 2]);
    expect(record.mock.calls.map(([entry, durable]) => [entry.kind === 'call' && entry.tool, durable])).toEqual([
      ['Post', true],
      ['Lookup', false],
      ['Post', true],
      ['Lookup', false],
    ]);
  });

  it('builtins.<name>.side_effects gives a built-in replay by call id', async () => {
    const t = await app({ config: { builtins: { Read: { side_effects: true } } } });
    writeFileSync(join(t.workspace, 'a.txt'), 'one\n');
    const read = { session_id: 's', tool_calls: [{ id: 'r1', name: 'Read', arguments: { path: 'a.txt' } }] };
    expect((await execute(t.app, read)).body.results[0].replayed).toBe(false);
    expect((await execute(t.app, read)).body.results[0].replayed).toBe(true);
  });
});
