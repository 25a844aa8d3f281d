import { describe, expect, it } from 'vitest';
import { buildTestApp, execute } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';

describe('logs: one line per tool call', () => {
  it('exactly one tool call line per call, with every documented field, for successes and failures alike', async () => {
    const t = await buildTestApp({ tools: [faultyTool('F')] });
    try {
      t.logs.length = 0;
      await execute(
        t.app,
        {
          session_id: 'sess',
          tool_calls: [
            { id: 'ok', name: 'F', arguments: { mode: 'ok', token: 'SECRET-TOKEN' } },
            { id: 'bad', name: 'F', arguments: { mode: 'fail' } },
            { id: 'json', name: 'F', arguments: '{nope' },
          ],
        },
        { 'x-request-id': 'req-ops' },
      );
      const lines = t.logs.filter((l) => l.msg === 'tool call');
      expect(lines.map((l) => l.call_id)).toEqual(['ok', 'bad', 'json']);
      for (const line of lines) {
        expect(line).toMatchObject({ request_id: 'req-ops', session_id: 'sess', tenant: 'local', tool: 'F', status: expect.any(String) });
        expect(line.result_sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(typeof line.duration_ms).toBe('number');
      }
      expect(lines[0]!.error_code).toBeUndefined();
      expect(lines[0]!.arguments).toEqual({ mode: 'ok', token: '[REDACTED]' });
      expect(lines[1]).toMatchObject({ status: 'error', error_code: 'EXECUTION_FAILED' });
      expect(lines[2]).toMatchObject({ status: 'error', error_code: 'INVALID_JSON' });
      expect(JSON.stringify(t.logs)).not.toContain('SECRET-TOKEN');
    } finally {
      await t.close();
    }
  });
});
