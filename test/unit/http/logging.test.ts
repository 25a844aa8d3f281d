import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import type { Tool } from '../../../src/tools/tool.js';

const echo: Tool = {
  name: 'Echo',
  description: 'Echoes.',
  parameters: { type: 'object', additionalProperties: true },
  concurrencySafe: true,
  async run(args) {
    return { text: `OUTPUT-MARKER ${JSON.stringify(args)}` };
  },
};

/** One pino line per call, secrets redacted at any depth, outputs never logged. */
describe('per-call log lines', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ tools: [echo] });
  });
  afterAll(() => t.close());

  it('one line per call with the documented fields', async () => {
    await writeFile(join(t.workspace, 'f.txt'), 'FILE-CONTENT-MARKER\n');
    t.logs.length = 0;
    await execute(
      t.app,
      {
        session_id: 's-log',
        tool_calls: [
          { id: 'c1', name: 'Read', arguments: { path: 'f.txt' } },
          { id: 'c2', name: 'Nope', arguments: {} },
        ],
      },
      { 'x-request-id': 'rid-1' },
    );
    const lines = t.logs.filter((l) => l.msg === 'tool call');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      request_id: 'rid-1',
      session_id: 's-log',
      tenant: 'local',
      call_id: 'c1',
      tool: 'Read',
      arguments: { path: 'f.txt' },
      status: 'success',
      result_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      duration_ms: expect.any(Number),
    });
    expect(lines[1]).toMatchObject({ call_id: 'c2', status: 'error', error_code: 'UNKNOWN_TOOL' });
    expect(JSON.stringify(t.logs)).not.toContain('FILE-CONTENT-MARKER');
  });

  it('secret-looking keys are redacted at any depth and outputs never appear', async () => {
    t.logs.length = 0;
    await execute(t.app, [
      {
        id: 's',
        name: 'Echo',
        arguments: {
          query: 'fine',
          api_key: 'SECRET-1',
          nested: { deeper: [{ Authorization: 'Bearer SECRET-2', password: 'SECRET-3' }] },
          client_secret: 'SECRET-4',
        },
      },
    ]);
    const line = t.logs.find((l) => l.msg === 'tool call')!;
    const text = JSON.stringify(t.logs);
    for (const secret of ['SECRET-1', 'SECRET-2', 'SECRET-3', 'SECRET-4', 'OUTPUT-MARKER']) expect(text).not.toContain(secret);
    expect((line.arguments as Record<string, unknown>).query).toBe('fine');
    expect((line.arguments as Record<string, unknown>).api_key).toBe('[REDACTED]');
  });
});
