import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { random } from '../../helpers/fake-secrets.js';

/**
 * Edit cannot unmask (docs/guardrails.md, "No oracle"): an edit that leaves a
 * credential byte for byte as it was can still change what the scanner reads
 * around it. Renaming the name before a value (`DB_PASSWORD=` to `DB_X=`),
 * or gluing a character onto a token that is found only as a whole word
 * (`AKIA…`, `sk_live_…`, `npm_…`), would make the next Read show the raw
 * value. Such an edit is refused and the file is left as it was.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PASSWORD = `Tr0ub4dor&${random(ALNUM, 6)}`;
const AWS = `AKIA${random('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const NPM = `npm_${random(ALNUM, 36)}`;
const FILE = `DB_PASSWORD=${PASSWORD}\nkey ${AWS} here\nnpm: ${NPM}\nREGION=eu-west-1\n`;

describe('Edit cannot make a redacted value readable', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  let n = 0;
  const attacks: Array<[string, string, string]> = [
    ['renames the name before a value', 'DB_PASSWORD=', 'DB_X='],
    ['glues a letter before a whole-word token', 'key ', 'key X'],
    ['glues a letter after a whole-word token', ' here', 'X here'],
    ['glues a digit before a vendor token', 'npm: ', 'npm: 0'],
  ];

  /** Writes `file` anew, reads it as a model would before an edit, and makes the calls one by one. */
  async function session(file: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>) {
    await writeFile(join(t.workspace, file), FILE);
    const results = [];
    for (const call of [{ name: 'Read', arguments: { path: file } }, ...calls])
      results.push((await execute(t.app, [{ id: `call-${++n}`, ...call }])).body.results[0]);
    return results.slice(1);
  }

  it.each(attacks)('an edit that %s is refused, the file unchanged, and a Read shows no raw value', async (_, oldString, newString) => {
    const file = `case-${n}.env`;
    const [edit, read] = await session(file, [
      { name: 'Edit', arguments: { path: file, old_string: oldString, new_string: newString } },
      { name: 'Read', arguments: { path: file } },
    ]);
    expect(edit.status).toBe('error');
    expect(edit.error.code).toBe('INVALID_ARGS');
    expect(await readFile(join(t.workspace, file), 'utf8')).toBe(FILE);
    const shown = JSON.stringify([edit, read]);
    for (const secret of [PASSWORD, AWS, NPM]) expect(shown.includes(secret), secret).toBe(false);
  });

  it('an edit of other text, and one next to a value that stays redacted, go through', async () => {
    const results = await session('other.env', [
      { name: 'Edit', arguments: { path: 'other.env', old_string: 'eu-west-1', new_string: 'us-east-2' } },
      { name: 'Edit', arguments: { path: 'other.env', old_string: 'DB_PASSWORD=', new_string: 'DB_ADMIN_PASSWORD=' } },
      { name: 'Edit', arguments: { path: 'other.env', old_string: 'key ', new_string: 'key: ' } },
      { name: 'Read', arguments: { path: 'other.env' } },
    ]);
    expect(results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'success', 'success']);
    expect(await readFile(join(t.workspace, 'other.env'), 'utf8')).toBe(
      FILE.replace('eu-west-1', 'us-east-2').replace('DB_PASSWORD=', 'DB_ADMIN_PASSWORD=').replace('key ', 'key: '),
    );
    expect(results[3].text).toContain('DB_ADMIN_PASSWORD=[REDACTED:password]');
    expect(results[3].text).toContain('key: [REDACTED:aws_access_key_id] here');
  });

  it('replace_all that grows the text before and after each value moves them right: nothing is refused, nothing shown', async () => {
    const [edit, read] = await session('grow.env', [
      { name: 'Edit', arguments: { path: 'grow.env', old_string: ' ', new_string: '   ', replace_all: true } },
      { name: 'Read', arguments: { path: 'grow.env' } },
    ]);
    expect(edit.error, JSON.stringify(edit.error)).toBeUndefined();
    expect(read.text).toContain('key   [REDACTED:aws_access_key_id]   here');
    expect(read.text).toContain('npm:   [REDACTED:npm_token]');
    for (const secret of [PASSWORD, AWS, NPM]) expect(read.text.includes(secret), secret).toBe(false);
  });
});
