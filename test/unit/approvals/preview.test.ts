import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { previewOf } from '../../../src/approvals/index.js';
import { createSecretScanner } from '../../../src/guardrails/index.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';
import { makeSandbox, type Sandbox } from '../tools/fixtures.js';

const github = FAKE_SECRETS.find((f) => f.kind === 'github_token')!.secret;

describe('an approval preview with the guardrails on', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ '.env': `GITHUB_TOKEN=${github}\nDB_PASSWORD=Tr0ub4dor&3x\nDEBUG=0\n` });
  });
  afterEach(() => sb.cleanup());

  it('shows a diff with the file’s credentials replaced by their markers, and the diff as it is without a scanner', async () => {
    const args = { path: '.env', old_string: 'DEBUG=0', new_string: 'DEBUG=1' };
    const guarded = JSON.stringify(await previewOf(sb.tools.Edit!, args, () => sb.ws, createSecretScanner()));
    expect(guarded).not.toContain(github);
    expect(guarded).not.toContain('Tr0ub4dor');
    expect(guarded).toContain('[REDACTED:github_token]');
    expect(guarded).toContain('DB_PASSWORD=[REDACTED:password]');
    expect(guarded).toContain('+DEBUG=1');
    expect(JSON.stringify(await previewOf(sb.tools.Edit!, args, () => sb.ws))).toContain(github);
  });

  it('shows the arguments of any other tool with their credentials replaced', async () => {
    const preview = await previewOf(sb.tools.Grep!, { pattern: github }, () => sb.ws, createSecretScanner());
    expect(preview).toEqual({ kind: 'arguments', arguments: { pattern: '[REDACTED:github_token]' } });
  });
});
