import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';

/**
 * A private key whose every line carries a prefix: a diff of the commit that
 * removed it (`-`), a quoted mail (`> `), a commented-out block (`# `). The
 * block rule read base64 lines only at a line's start, so each body line
 * came through whole. Through Read and Grep, each is redacted.
 */

const KEYS = FAKE_SECRETS.filter((fake) => fake.kind === 'private_key').map((fake) => fake.text);
const PREFIXES: Array<[string, string]> = [
  ['a diff that removes it', '-'],
  ['a diff that adds it', '+'],
  ['a quoted mail', '> '],
  ['a comment', '# '],
];

describe('private keys with a prefix on every line', () => {
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(PREFIXES)('in %s: no body line of any key comes back from Read or Grep', async (_, prefix) => {
    const file = `keys-${++n}.txt`;
    const text = KEYS.map(
      (key) =>
        `header\n${key
          .split('\n')
          .map((line) => prefix + line)
          .join('\n')}\n`,
    ).join('');
    await writeFile(join(t.workspace, file), text);
    const { body } = await execute(t.app, [
      { id: `read-${n}`, name: 'Read', arguments: { path: file } },
      { id: `grep-${n}`, name: 'Grep', arguments: { pattern: '.', path: file, output_mode: 'content' } },
    ]);
    const shown = JSON.stringify(body);
    for (const key of KEYS)
      for (const line of key.split('\n'))
        if (line.length >= 32 && !line.includes('PRIVATE KEY')) expect(shown.includes(line), line).toBe(false);
    expect(body.results[0].data.redactions).toEqual({ private_key: KEYS.length });
  });
});
