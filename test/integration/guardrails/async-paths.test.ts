import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { random } from '../../helpers/fake-secrets.js';
import { createTestDispatchers, startServer, type TestServer } from '../http-tools/helpers.js';

/**
 * Every path out (docs/guardrails.md), for async calls: the result GET
 * /executions/{id} answers and the callback's body are redacted as a
 * synchronous answer is, cuts after the scan included.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const GITHUB = `ghp_${random(ALNUM, 36)}`;

describe('async results and their callbacks', () => {
  let g: AsyncGateway | undefined;
  let receiver: TestServer | undefined;
  afterAll(async () => {
    await g?.close();
    await receiver?.close();
  });

  it('hold no credential: not whole, nor its first characters across a line cut', async () => {
    receiver = await startServer((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    g = await asyncGateway({
      dispatchers: createTestDispatchers(),
      config: { async: { callback_secret: 'callback-secret-0123456789abcdef', callback_allow_private_network: true } },
    });
    await writeFile(join(g.workspace, 'app.log'), `token ${GITHUB}\n${'a'.repeat(1969)} ${GITHUB} and more\n`);
    g.startWorkers();
    const { status, body } = await g.submit({
      tool_calls: [{ id: 'c1', name: 'Read', arguments: { path: 'app.log' } }],
      callback_url: `${receiver.origin}/hook`,
    });
    expect(status).toBe(202);
    const deadline = Date.now() + 15_000;
    while (receiver.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    const callback = receiver.requests[0]!.body;
    const read = JSON.stringify((await g.read(body.execution_id)).body);
    for (const text of [callback, read]) {
      expect(text).not.toContain(GITHUB.slice(0, 16));
      expect(text).toContain('[REDACTED:github_token]');
    }
  });
});
