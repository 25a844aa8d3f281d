import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';

/**
 * Path rules hold wherever a file is touched (docs/policy.md): Grep, Glob and
 * LS apply the rules for reading to every entry they meet, resolved as the
 * permission gate resolves paths, links included. An entry a rule denies or
 * would ask for is neither read nor named; `data.withheld` counts them.
 */

// What the policy withholds is the point here, so the guardrails (which would redact this value) are off in these apps.
const SECRET = 'API_KEY=hunter2-do-not-show';
const TOKEN = 'TOKEN=ask-before-showing';

async function workspace(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'toolgate-withhold-'));
  const put = async (rel: string, content: string) => {
    await mkdir(join(root, rel, '..'), { recursive: true });
    await writeFile(join(root, rel), content);
  };
  await put('secrets/key.txt', `${SECRET}\n`);
  await put('secrets/deep/more.txt', `${SECRET} again\n`);
  await put('public/readme.md', 'hello public\n');
  await put('notes/private.env', `${TOKEN}\n`);
  await put('notes/plain.md', 'plain notes\n');
  await symlink('secrets', join(root, 'into-secrets'));
  await symlink('../secrets/key.txt', join(root, 'public/key-link'));
  return root;
}

const call = (name: string, args: Record<string, unknown>, id = name) => ({ id, name, arguments: args });
const texts = (body: Record<string, any>) => body.results.map((r: any) => r.text ?? '').join('\n');

async function run(t: TestApp, calls: Array<ReturnType<typeof call>>, headers: Record<string, string> = {}) {
  const { body } = await execute(t.app, { session_id: 's', tool_calls: calls }, headers);
  return body;
}

describe.each([
  ['a rule on every tool', { tool: '*', when: { path: '^secrets/' }, decision: 'deny' }],
  [
    'a rule on Read alone: reading a path is one thing for every tool that reads',
    { tool: 'Read', when: { path: '^secrets/' }, decision: 'deny' },
  ],
  [
    'a rule on Grep alone: a rule for one reading tool is a rule for reading',
    { tool: 'Grep', when: { path: '^secrets/' }, decision: 'deny' },
  ],
])('%s', (_name, rule) => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    root = await workspace();
    t = await buildTestApp({ workspace: root, config: { guardrails: { secrets: 'off' }, policy: { rules: [rule] } } });
  });
  afterAll(async () => {
    await t.close();
    await rm(root, { recursive: true, force: true });
  });

  it('Grep over the workspace, over the directory and through a link to it reads nothing below it, and counts what it withheld', async () => {
    const body = await run(t, [
      call('Grep', { pattern: '.' }, 'root'),
      call('Grep', { pattern: '.', path: 'secrets' }, 'dir'),
      call('Grep', { pattern: 'API_KEY', path: 'into-secrets' }, 'link'),
      call('Grep', { pattern: '.', path: './public/../secrets/.' }, 'spelled'),
      call('Grep', { pattern: '.', path: join(root, 'secrets') }, 'absolute'),
    ]);
    expect(texts(body)).not.toContain('hunter2');
    expect(texts(body)).not.toMatch(/key\.txt|more\.txt|deep/);
    expect(body.results.map((r: any) => r.status)).toEqual(['success', 'success', 'success', 'success', 'success']);
    // At the root: secrets/key.txt and secrets/deep, a withheld directory not entered and counted once.
    expect(body.results[0].data).toEqual({ withheld: { denied: 2, needs_approval: 0 } });
    expect(body.results[0].text).toContain('hello public');
    for (const r of body.results.slice(1)) expect(r.data).toEqual({ withheld: { denied: 2, needs_approval: 0 } });
    expect(body.results[0].text).toContain('(2 entries withheld by the permission policy: 2 denied)');
    expect(body.results[0].text).not.toContain('into-secrets');
  });

  it('Glob names nothing below it, whatever the pattern', async () => {
    const body = await run(t, [
      call('Glob', { pattern: '**/*' }, 'all'),
      call('Glob', { pattern: 'secrets/**' }, 'under'),
      call('Glob', { pattern: '**/key.txt' }, 'name'),
      call('Glob', { pattern: '{secrets,public}/**/*' }, 'braces'),
      call('Glob', { pattern: '**', path: 'into-secrets' }, 'link'),
    ]);
    expect(texts(body)).not.toMatch(/key\.txt|more\.txt|deep/);
    expect(body.results[0].text).toContain('public/readme.md');
    // A directory is judged whatever the pattern: it may hold what the pattern wants.
    expect(body.results.map((r: any) => r.data?.withheld.denied)).toEqual([2, 2, 2, 2, 2]);
  });

  it('LS lists the directory but names none of its entries, nor a link that leads to one of them', async () => {
    const body = await run(t, [call('LS', { path: 'secrets' }, 'dir'), call('LS', { path: 'public' }, 'links'), call('LS', {}, 'root')]);
    expect(body.results[0].text).toBe('(empty directory)\n\n(2 entries withheld by the permission policy: 2 denied)');
    expect(body.results[1].text).toBe('readme.md\n\n(1 entry withheld by the permission policy: 1 denied)');
    // The directory itself is no path below it: `^secrets/` leaves its name to be seen.
    expect(body.results[2].text).toContain('secrets/');
    expect(body.results[2].data).toBeUndefined();
  });

  it('naming the file itself is PERMISSION_DENIED, as before', async () => {
    const body = await run(t, [
      rule.tool === 'Read' ? call('Read', { path: 'secrets/key.txt' }) : call('Grep', { pattern: '.', path: 'secrets/key.txt' }),
    ]);
    expect(body.results[0].error.code).toBe('PERMISSION_DENIED');
  });
});

describe('rules for writing do not hide entries; rules that ask withhold as needing approval', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    root = await workspace();
    t = await buildTestApp({
      workspace: root,
      config: {
        guardrails: { secrets: 'off' },
        policy: {
          rules: [
            { tool: 'Write', when: { path: '^secrets/' }, decision: 'deny' },
            { tool: 'Edit', when: { path: '^secrets/' }, decision: 'ask' },
            { tool: '*', when: { path: '\\.env$' }, decision: 'ask' },
            { tool: 'Grep', when: { path: '^notes', pattern: 'TOKEN' }, decision: 'deny' },
          ],
        },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a Write or Edit rule leaves the files to every reader', async () => {
    const body = await run(t, [call('Grep', { pattern: 'API_KEY' }), call('Glob', { pattern: 'secrets/**' })]);
    expect(body.results[0].text).toContain('secrets/key.txt:1:API_KEY');
    expect(body.results[1].text).toBe('secrets/deep/more.txt\nsecrets/key.txt');
    // The one entry withheld is the .env file another rule asks for.
    expect(body.results.map((r: any) => r.data)).toEqual([{ withheld: { denied: 0, needs_approval: 1 } }, undefined]);
  });

  it('an entry a rule asks for is withheld and counted as needing approval; named, it asks', async () => {
    const body = await run(t, [call('Grep', { pattern: '=' }, 'walk'), call('Read', { path: 'notes/private.env' }, 'read')]);
    expect(body.results[0].text).not.toContain('ask-before-showing');
    expect(body.results[0].data).toEqual({ withheld: { denied: 0, needs_approval: 1 } });
    expect(body.results[1].error.code).toBe('APPROVAL_REQUIRED');
  });

  it("a rule that also looks at another argument holds in its own tool's walks, with the call's arguments", async () => {
    const body = await run(t, [
      call('Grep', { pattern: 'TOKEN', path: '.' }, 'token'),
      call('Grep', { pattern: 'plain' }, 'plain'),
      call('Glob', { pattern: 'notes/*' }, 'glob'),
    ]);
    // The directory itself: searched for TOKEN, the Grep rule denies it.
    expect(body.results[0].data).toEqual({ withheld: { denied: 1, needs_approval: 0 } });
    expect(body.results[1].text).toBe('notes/plain.md:1:plain notes\n\n(1 entry withheld by the permission policy: 1 needing approval)');
    // Not Glob's: it has no pattern of a Grep call; the .env rule still asks.
    expect(body.results[2].text).toBe('notes/plain.md\n\n(1 entry withheld by the permission policy: 1 needing approval)');
  });
});

describe('an approved walk shows what the rule that made it ask covers, and nothing another rule withholds', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    root = await workspace();
    await writeFile(join(root, 'notes/extra.key'), 'KEY=other rule\n');
    t = await buildTestApp({
      workspace: root,
      config: {
        guardrails: { secrets: 'off' },
        policy: {
          rules: [
            { tool: '*', when: { path: '^notes' }, decision: 'ask' },
            { tool: '*', when: { path: '\\.key$' }, decision: 'ask' },
          ],
        },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await rm(root, { recursive: true, force: true });
  });

  it('Grep of the directory asks; approved, it reads below it, but not what only another rule asks for', async () => {
    const first = await run(t, [call('Grep', { pattern: '.' }, 'root')]);
    expect(first.results[0].data).toEqual({ withheld: { denied: 0, needs_approval: 1 } });
    const asked = await run(t, [call('Grep', { pattern: '.', path: 'notes' }, 'notes')]);
    expect(asked.results[0].error.code).toBe('APPROVAL_REQUIRED');
    await t.app.inject({
      method: 'POST',
      url: `/approvals/${asked.results[0].error.details.approval_id}`,
      payload: { decision: 'approve' },
    });
    const body = await run(t, [call('Grep', { pattern: '.', path: 'notes' }, 'notes-again')]);
    expect(body.results[0].text).toContain('ask-before-showing');
    expect(body.results[0].text).not.toContain('other rule');
    expect(body.results[0].data).toEqual({ withheld: { denied: 0, needs_approval: 1 } });
  });
});

describe('the same with the configurations a deployment combines: per-tool overrides and keys limited to some tools', () => {
  let t: TestApp;
  let root: string;
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  beforeAll(async () => {
    root = await workspace();
    t = await buildTestApp({
      workspace: root,
      config: {
        keys: [{ id: 'walker', sha256: sha256('tg_walker'), tenant: 't', scopes: ['execute'], tools: ['Gr*', 'Glob', 'LS'] }],
        tenants: { t: { workspace: root } },
        builtins: {
          Grep: { timeout_ms: 5000, rate_limit: { per_minute: 600 } },
          Glob: { concurrency_safe: false },
          Read: { enabled: false },
        },
        policy: { rules: [{ tool: 'Read', when: { path: '^secrets/' }, decision: 'deny' }] },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a key that cannot call Read, with Read disabled, still gets nothing a rule on Read withholds', async () => {
    const body = await run(t, [call('Grep', { pattern: '.' }), call('Glob', { pattern: '**' }), call('LS', { path: 'secrets' })], {
      authorization: 'Bearer tg_walker',
    });
    expect(texts(body)).not.toMatch(/hunter2|key\.txt|more\.txt|deep/);
    expect(body.results.map((r: any) => r.data?.withheld.denied)).toEqual([2, 2, 2]);
  });
});
