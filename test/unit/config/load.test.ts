import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectConfig } from '../../../src/config/load.js';
import { dir, file, HTTP_TOOL, problemsOf, useConfigDir } from './load-fixtures.js';

useConfigDir();

describe('a bad configuration is refused with every problem listed at once', () => {
  it('lists unknown keys, wrong types in several sections, a bad regex, duplicate tool names and a bad PORT in one error', async () => {
    const path = await file(`
colour: blue
port: "eighty"
limits: {body_bytes: -1, concurrency: many, speed: 3}
state: {command_timeout_ms: 1.5}
tools: ${JSON.stringify([
      { name: 'lookup', ...HTTP_TOOL },
      { name: 'lookup', ...HTTP_TOOL },
    ])}
policy:
  rules:
    - {tool: Read, when: {path: "(unclosed"}, decision: deny}
`);
    const problems = problemsOf({ PORT: 'abc' }, path);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: /),
        expect.stringMatching(/^\(top level\): unknown setting "colour"/),
        expect.stringMatching(/^port: must be integer/),
        expect.stringMatching(/^limits\.body_bytes: /),
        expect.stringMatching(/^limits\.concurrency: must be integer/),
        expect.stringMatching(/^limits: unknown setting "speed"/),
        expect.stringMatching(/^state\.command_timeout_ms: must be integer/),
        expect.stringMatching(/^tools: the name "lookup" is declared twice/),
        expect.stringMatching(/^policy\.rules\.0\.when\.path: not a valid regular expression/),
      ]),
    );
    expect(problems).toHaveLength(9);
  });

  it('names the values a setting takes once, not once per value', async () => {
    const problems = problemsOf(
      {},
      await file(
        `log_level: verbose\ntools: ${JSON.stringify([{ name: 't', ...HTTP_TOOL, http: { method: 'FETCH', url: 'https://x' } }])}\n`,
      ),
    );
    expect(problems).toEqual([
      'log_level: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
      'tools.0.http.method: must be one of "GET", "POST", "PUT", "PATCH", "DELETE"',
    ]);
  });

  it('reports a YAML syntax error together with the environment problems', async () => {
    const problems = problemsOf({ PORT: 'abc' }, await file('tools: [\n  - name: x\nport: 1\n'));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^config file .*config-.*\.yaml: /);
    expect(problems[1]).toMatch(/^PORT: /);
  });

  it('reports a file that cannot be read, and a top level that is not a mapping', async () => {
    expect(problemsOf({}, join(dir, 'missing.yaml'))).toEqual([expect.stringMatching(/missing\.yaml: .*ENOENT/)]);
    expect(problemsOf({}, await file('- a\n- b\n'))).toEqual([expect.stringMatching(/the top level must be a mapping/)]);
  });

  it('refuses duplicate key ids and a batch budget under the call budget', async () => {
    const key = (id: string, hash: string) => ({ id, sha256: hash.repeat(64), tenant: 't', scopes: ['execute'] });
    const path = await file(
      JSON.stringify({ keys: [key('k', 'a'), key('k', 'b')], limits: { call_budget_bytes: 4096, batch_budget_bytes: 2048 } }),
    );
    expect(problemsOf({}, path)).toEqual([
      'keys: the id "k" is used twice',
      'limits.batch_budget_bytes: must be at least limits.call_budget_bytes',
    ]);
  });
});

describe('a problem in one part hides none in another', () => {
  it('checks the patterns of a rule that is broken elsewhere, and of the rules after it', async () => {
    const path = await file(`
policy:
  rules:
    - {tool: Read, when: {path: "[abc"}, decision: maybe}
    - {tool: Read, when: {path: "(?=x)"}, decision: deny}
`);
    expect(problemsOf({}, path)).toEqual([
      'policy.rules.0.decision: must be one of "allow", "ask", "deny"',
      expect.stringMatching(/^policy\.rules\.0\.when\.path: not a valid regular expression \("\[abc"\): missing closing "\]"/),
      expect.stringMatching(/^policy\.rules\.1\.when\.path: .*lookaround\/backreferences are not supported \(RE2\)/),
    ]);
  });

  it('hands the later checks every valid part: a broken tool, builtins entry or value left out, the rest kept', async () => {
    const good = { name: 'good', ...HTTP_TOOL };
    const path = await file(
      JSON.stringify({
        port: 'eighty',
        limits: { concurrency: 4, body_bytes: -1 },
        builtins: { Read: { timeout_ms: 'soon' }, Grep: { timeout_ms: 10_000 } },
        tools: [{ name: 'bad', ...HTTP_TOOL, http: { method: 'FETCH', url: 'https://x' } }, good],
        policy: {
          rules: [
            { tool: 'good', decision: 'sometimes' },
            { tool: 'bad', decision: 'deny' },
          ],
        },
      }),
    );
    const report = inspectConfig({}, path);
    expect(report.problems).toHaveLength(5);
    expect(report.config.port).toBe(8080);
    expect(report.config.limits).toMatchObject({ concurrency: 4, body_bytes: 1_048_576 });
    expect(report.config.builtins).toEqual({ Read: {}, Grep: { timeout_ms: 10_000 }, Bash: expect.objectContaining({ sandbox: 'auto' }) });
    expect(report.config.tools).toEqual([good]);
    expect(report.config.policy.rules).toEqual([{ tool: 'bad', decision: 'deny' }]);
    // As written, so later checks name each rule by its index in the file.
    expect(report.written.rules).toEqual([
      { tool: 'good', decision: 'sometimes' },
      { tool: 'bad', decision: 'deny' },
    ]);
    expect(report.written.tools.map((t: any) => t.name)).toEqual(['bad', 'good']);
  });
});
