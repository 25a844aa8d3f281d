import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { random } from '../../helpers/fake-secrets.js';

/**
 * No oracle (docs/guardrails.md): Grep's pattern, Glob over names and Edit's
 * old_string match what the model may see (the redacted view), so no call's
 * answer depends on a value the model was not shown. The attack pinned: a
 * model that knows a token's first characters tries each next one; on raw
 * text the right one matches, and 37 batches recover the token.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN = `ghp_${random(ALNUM, 36)}`;
const ENV = `# deploy settings\nGITHUB_TOKEN=${TOKEN}\nREGION=eu-west-1\n`;

/** One call per next character, after the first `known` characters of the token's random part. */
function guesses(known: number, call: (guess: string) => { name: string; arguments: Record<string, unknown> }) {
  const prefix = TOKEN.slice(0, 4 + known);
  return [...ALNUM].map((c, i) => ({ id: `g${i}`, ...call(prefix + c) }));
}

/** What an answer tells the model, less what differs by call alone (its id, its time). */
function told(result: Record<string, any>): string {
  return JSON.stringify({ status: result.status, text: result.text, error: result.error, data: result.data });
}

describe('no oracle: a pattern or old_string matches only what the model could read', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, '.env'), ENV);
    await mkdir(join(t.workspace, 'keys'));
    await writeFile(join(t.workspace, 'keys', `${TOKEN}.txt`), 'hello\n');
  });
  afterAll(async () => {
    await t.close();
  });

  it('Grep: `^GITHUB_TOKEN=ghp_<known><c>` for every c gets one answer, the right c included, at every known length', async () => {
    for (const known of [0, 1, 20, 35]) {
      const calls = guesses(known, (guess) => ({ name: 'Grep', arguments: { pattern: `^GITHUB_TOKEN=${guess}`, path: '.env' } }));
      const { body } = await execute(t.app, calls);
      const answers = new Set(body.results.map(told));
      expect(answers.size, `known=${known}`).toBe(1);
      expect(body.results[0].text).toBe('No matches.');
    }
    // What the model can read, it can find: the name, and that a value was redacted there.
    const { body } = await execute(t.app, [
      { id: 'seen', name: 'Grep', arguments: { pattern: '^GITHUB_TOKEN=\\[REDACTED:', path: '.env' } },
    ]);
    expect(body.results[0].text).toContain('.env:2:GITHUB_TOKEN=[REDACTED:github_token]');
    expect(body.results[0].data.redactions).toEqual({ github_token: 1 });
  });

  it('Grep over a directory with a glob of names: neither the pattern nor the glob can test a token', async () => {
    const byPattern = guesses(10, (guess) => ({ name: 'Grep', arguments: { pattern: guess } }));
    const byGlob = guesses(10, (guess) => ({ name: 'Grep', arguments: { pattern: 'hello', path: 'keys', glob: `${guess}*` } }));
    for (const calls of [byPattern, byGlob]) {
      const { body } = await execute(t.app, calls);
      expect(new Set(body.results.map(told)).size).toBe(1);
      expect(body.results[0].text).toBe('No matches.');
    }
  });

  it('Glob over file names: `keys/ghp_<known><c>*` for every c gets one answer; the name as the model sees it matches', async () => {
    for (const known of [0, 10]) {
      const { body } = await execute(
        t.app,
        guesses(known, (guess) => ({ name: 'Glob', arguments: { pattern: `keys/${guess}*` } })),
      );
      expect(new Set(body.results.map(told)).size, `known=${known}`).toBe(1);
      expect(body.results[0].text).toBe('No files matched.');
    }
    const { body } = await execute(t.app, [{ id: 'seen', name: 'Glob', arguments: { pattern: 'keys/\\[REDACTED:*' } }]);
    expect(body.results[0].text).toContain('keys/[REDACTED:github_token].txt');
  });

  it('Edit: an old_string holding the raw token never matches, the same answer as a wrong guess, and the file is left as it was', async () => {
    const wrong = `GITHUB_TOKEN=ghp_${'x'.repeat(36)}`;
    const { body } = await execute(t.app, [
      { id: 'e1', name: 'Edit', arguments: { path: '.env', old_string: `GITHUB_TOKEN=${TOKEN}`, new_string: 'GITHUB_TOKEN=' } },
      { id: 'e2', name: 'Edit', arguments: { path: '.env', old_string: wrong, new_string: 'GITHUB_TOKEN=' } },
    ]);
    expect(body.results[0].error.code).toBe('INVALID_ARGS');
    expect(body.results[0].error.message).toBe(body.results[1].error.message);
    expect(await readFile(join(t.workspace, '.env'), 'utf8')).toBe(ENV);
  });

  it('Edit: an old_string over a marker is refused (it would replace what the model never saw); an edit of other lines keeps the token as it is', async () => {
    const refused = await execute(t.app, [
      {
        id: 'e3',
        name: 'Edit',
        arguments: { path: '.env', old_string: 'GITHUB_TOKEN=[REDACTED:github_token]', new_string: 'GITHUB_TOKEN=' },
      },
    ]);
    expect(refused.body.results[0].error.code).toBe('INVALID_ARGS');
    expect(refused.body.results[0].error.message).toContain('redacted before you saw it');
    expect(await readFile(join(t.workspace, '.env'), 'utf8')).toBe(ENV);

    // Copied from Read as the model saw it: the token's line with the lines around it, but not the marker.
    const { body } = await execute(t.app, [
      { id: 'r1', name: 'Read', arguments: { path: '.env' } },
      {
        id: 'e4',
        name: 'Edit',
        arguments: { path: '.env', old_string: '# deploy settings\nGITHUB_TOKEN=', new_string: '# deploy\nGITHUB_TOKEN=' },
      },
      { id: 'e5', name: 'Edit', arguments: { path: '.env', old_string: '\nREGION=eu-west-1', new_string: '\nREGION=us-east-2' } },
    ]);
    expect(body.results[1].status).toBe('success');
    expect(body.results[2].status).toBe('success');
    expect(await readFile(join(t.workspace, '.env'), 'utf8')).toBe(`# deploy\nGITHUB_TOKEN=${TOKEN}\nREGION=us-east-2\n`);
  });

  it('Edit with replace_all replaces every occurrence outside the markers, and none of a token', async () => {
    await writeFile(join(t.workspace, 'two.env'), `A_TOKEN=${TOKEN}\nB_TOKEN=${TOKEN}\nmode=old\nother=old\n`);
    const { body } = await execute(t.app, [
      { id: 'a1', name: 'Edit', arguments: { path: 'two.env', old_string: 'old', new_string: 'new', replace_all: true } },
      { id: 'a2', name: 'Edit', arguments: { path: 'two.env', old_string: '_TOKEN=', new_string: '_KEY=', replace_all: true } },
    ]);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
    expect(await readFile(join(t.workspace, 'two.env'), 'utf8')).toBe(`A_KEY=${TOKEN}\nB_KEY=${TOKEN}\nmode=new\nother=new\n`);
  });
});
