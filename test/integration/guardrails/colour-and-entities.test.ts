import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { random } from '../../helpers/fake-secrets.js';

/**
 * Through POST /execute: a log saved with colour (`grep --color=always ghp_`
 * splits the token: `\e[01;31m\e[Kghp_\e[m\e[K<rest>`) and a saved HTML page
 * (`data-config="{&quot;api_key&quot;: &quot;…&quot;}"`, `&#103;hp_…`)
 * showed the raw values; each is redacted now.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN = `ghp_${random(ALNUM, 36)}`;
const KEY = random('0123456789abcdef', 32);
const PASSWORD = `Tr0ub4dor&${random(ALNUM, 6)}`;
const LOG = `.env:GITHUB_TOKEN=\u001b[01;31m\u001b[Kghp_\u001b[m\u001b[K${TOKEN.slice(4)}\n.env:DB_\u001b[01;31m\u001b[KPASSWORD\u001b[m\u001b[K=${PASSWORD}\n`;
const PAGE =
  `<div data-config="{&quot;api_key&quot;: &quot;${KEY}&quot;}"></div>\n` +
  `<p>${[...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join('')}</p>\n<td>DB_PASSWORD=${PASSWORD.replace('&', '&amp;')}</td>\n`;

describe('colour codes and HTML character references, through Read', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'grep.log'), LOG);
    await writeFile(join(t.workspace, 'page.html'), PAGE);
  });
  afterAll(async () => {
    await t.close();
  });

  it('no value comes back, each file says what was redacted', async () => {
    const { body } = await execute(t.app, [
      { id: 'log', name: 'Read', arguments: { path: 'grep.log' } },
      { id: 'page', name: 'Read', arguments: { path: 'page.html' } },
    ]);
    const shown = JSON.stringify(body);
    for (const secret of [TOKEN.slice(4, 20), TOKEN.slice(-16), KEY, PASSWORD.slice(0, 9), PASSWORD.slice(-6)])
      expect(shown.includes(secret), secret).toBe(false);
    expect(body.results[0].data.redactions).toEqual({ github_token: 1, password: 1 });
    expect(body.results[1].data.redactions).toEqual({ github_token: 1, password: 1, secret: 1 });
  });
});
