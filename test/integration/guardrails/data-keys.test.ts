import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { FAKE_SECRETS, random } from '../../helpers/fake-secrets.js';

/**
 * A tool's `data` keyed by credentials (an API's map of keys to their
 * owners, an MCP tool's structured content): every value was scanned, no
 * key was, so `data` handed the keys to the model whole while `text` showed
 * markers. Keys are redacted as any string; two that redact to one marker
 * stay apart (` #2`).
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKENS = [`ghp_${random(ALNUM, 36)}`, `ghp_${random(ALNUM, 36)}`];
const AWS = FAKE_SECRETS.find((fake) => fake.kind === 'aws_access_key_id')!.secret;

const keyed: Tool = {
  name: 'keyed',
  description: 'Lists keys by owner.',
  parameters: { type: 'object', properties: {} },
  concurrencySafe: true,
  async run() {
    return {
      text: 'keys listed',
      data: { owners: { [TOKENS[0]!]: 'ada', [TOKENS[1]!]: 'bob', plain: 'kept' }, deep: [{ [`id ${AWS}`]: true }] },
    };
  },
};

describe('credentials in the keys of a tool’s data', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp({ tools: [keyed] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('are redacted, counted, each key kept apart and in order', async () => {
    const { body } = await execute(t.app, [{ id: 'k', name: 'keyed', arguments: {} }]);
    const shown = JSON.stringify(body);
    for (const secret of [...TOKENS, AWS]) expect(shown.includes(secret), secret).toBe(false);
    const { data } = body.results[0];
    expect(Object.entries(data.owners)).toEqual([
      ['[REDACTED:github_token]', 'ada'],
      ['[REDACTED:github_token] #2', 'bob'],
      ['plain', 'kept'],
    ]);
    expect(data.deep).toEqual([{ 'id [REDACTED:aws_access_key_id]': true }]);
    expect(data.redactions).toEqual({ github_token: 2, aws_access_key_id: 1 });
  });
});
