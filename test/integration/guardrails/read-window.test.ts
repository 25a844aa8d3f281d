import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';

/**
 * A Read window that starts inside a private key (docs/guardrails.md, "Cuts
 * come after the scan"): `offset` past the `-----BEGIN … PRIVATE KEY-----`
 * line left the window's body lines with no begin line to be found by, so
 * Read offset=k limit=1, line by line, gave the whole key. The window is
 * scanned with the open block before it, so each of its lines shows the marker.
 */

const RSA = FAKE_SECRETS.find((fake) => fake.text.startsWith('-----BEGIN RSA PRIVATE KEY-----'))!.text;
const FILE = `# deploy key\nname: deploy\n${RSA}\ndone: true\n`;
const BODY = RSA.split('\n').slice(1, -1);

describe('a Read window inside a private key', () => {
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'key.txt'), FILE);
  });
  afterAll(async () => {
    await t.close();
  });

  async function read(args: Record<string, unknown>) {
    const { body } = await execute(t.app, [{ id: `read-${++n}`, name: 'Read', arguments: { path: 'key.txt', ...args } }]);
    return body.results[0];
  }

  it.each([
    ['one body line', { offset: 6, limit: 1 }],
    ['body lines, the end line not reached', { offset: 5, limit: 4 }],
    ['from inside the body to past the end line', { offset: 10, limit: 20 }],
  ])('%s: every body line shows the marker, none of the key', async (_, window) => {
    const result = await read(window);
    expect(result.status).toBe('success');
    for (const line of BODY) expect(result.text.includes(line), line).toBe(false);
    expect(result.text).toContain('[REDACTED:private_key]');
    expect(result.data.redactions).toEqual({ private_key: 1 });
  });

  it('lines after the key read as they are', async () => {
    const result = await read({ offset: 3 + BODY.length + 2, limit: 5 });
    expect(result.text).toContain('done: true');
    expect(result.text).not.toContain('REDACTED');
  });
});
