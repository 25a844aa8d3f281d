import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryWebhookOutbox } from '../../../src/webhooks/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { deliveryDeps, Receiver, SECRET } from '../../suites/webhook-outbox.suite.js';
import { createTestDispatchers } from '../http-tools/helpers.js';
import { makeWorkspace, removeAll } from './helpers.js';

/**
 * What an approver sees is what runs: a command whose text hides characters
 * (a bidi override turning what follows around, zero-width ones, isolates)
 * is shown with each as its code point in the preview, the request's
 * arguments and the webhook's body; the command that runs once approved is
 * the one sent, byte for byte. Through POST /execute, the real Bash in
 * bubblewrap, the real outbox posting to a loopback receiver.
 */

// Reads as `echo "txt.exe"` with the override; runs `echo "exe.txt"`.
const HIDDEN = 'echo "\u202Eexe.txt\u202C" \u2066x\u2069\u200B\u200D\uFEFF\u00AD\u2028\u17B4\u2065\uFFF0\u{E0FFF} > out.txt';
const SHOWN =
  'echo "<U+202E>exe.txt<U+202C>" <U+2066>x<U+2069><U+200B><U+200D><U+FEFF><U+00AD><U+2028><U+17B4><U+2065><U+FFF0><U+E0FFF> > out.txt';
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\uFEFF\u00AD\u2065\uFFF0]|\u17B4|\u{E0FFF}/u;

const dispatchers = createTestDispatchers();
let receiver: Receiver;
let outbox: MemoryWebhookOutbox;
let t: TestApp;
let workspace: string;

beforeAll(async () => {
  receiver = await new Receiver().start();
  outbox = new MemoryWebhookOutbox(deliveryDeps(dispatchers, { retry: { retries: 3, backoffMs: 50, timeoutMs: 2_000 } }));
  workspace = await makeWorkspace();
  t = await buildTestApp({
    workspace,
    outbox,
    config: {
      builtins: { Bash: { enabled: true, sandbox: 'required' } },
      approvals: { webhook_url: receiver.url, webhook_secret: SECRET, webhook_allow_private_network: true, webhook_backoff_ms: 50 },
    },
  });
});
afterAll(async () => {
  await outbox?.close();
  await t?.close();
  await receiver?.close();
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
  await removeAll(workspace);
});

describe('hidden characters in what an approver is shown', () => {
  it('show as code points in the preview, the arguments and the webhook body; the command runs as sent', async () => {
    const call = () => execute(t.app, { session_id: 's1', tool_calls: [{ id: 'c1', name: 'Bash', arguments: { command: HIDDEN } }] });
    const asked = (await call()).body.results[0];
    expect(asked.error.code).toBe('APPROVAL_REQUIRED');
    const id = asked.error.details.approval_id as string;

    const listed = await t.app.inject({ method: 'GET', url: `/approvals/${id}` });
    const approval = listed.json();
    expect(approval.preview).toMatchObject({ kind: 'command', command: SHOWN });
    expect(approval.arguments).toEqual({ command: SHOWN });
    expect(JSON.stringify(approval)).not.toMatch(INVISIBLE);

    await receiver.until(1);
    const body = JSON.parse(receiver.got[0]!.body);
    expect(body).toMatchObject({ event: 'approval.created', approval: { preview: { command: SHOWN }, arguments: { command: SHOWN } } });
    expect(receiver.got[0]!.body).not.toMatch(INVISIBLE);

    expect((await t.app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision: 'approve' } })).statusCode).toBe(200);
    const ran = (await call()).body.results[0];
    expect(ran.status).toBe('success');
    expect(await readFile(join(workspace, 'out.txt'), 'utf8')).toBe(
      '\u202Eexe.txt\u202C \u2066x\u2069\u200B\u200D\uFEFF\u00AD\u2028\u17B4\u2065\uFFF0\u{E0FFF}\n',
    );
  });
});
