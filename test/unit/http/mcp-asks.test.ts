import { describe, expect, it } from 'vitest';
import { ClientAsks, sessionIdFor } from '../../../src/http/mcp-asks.js';
import type { Caller } from '../../../src/pipeline/types.js';

/** What an /mcp client may be asked, as its Mcp-Session-Id carries it, and how its answer finds the request (docs/mcp.md). */

const caller = (keyId: string): Caller => ({ keyId, tenant: 't', scopes: new Set(['execute']), allows: () => true });
const elicit = { method: 'elicitation/create' as const, params: { message: 'name?', requestedSchema: { type: 'object' } } };

describe('sessionIdFor', () => {
  it('carries the capabilities declared, and none for a client that declared none', () => {
    expect(sessionIdFor({})).toMatch(/^[0-9a-f-]{36}$/);
    expect(sessionIdFor({ elicitation: {} })).toMatch(/\.f$/);
    expect(sessionIdFor({ elicitation: { url: {} } })).toMatch(/\.u$/);
    expect(sessionIdFor({ elicitation: { form: {}, url: {} }, sampling: {} })).toMatch(/\.fus$/);
    expect(sessionIdFor('not an object')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('ClientAsks', () => {
  it('refuses at once what the client did not declare, and sends nothing', async () => {
    const sent: unknown[] = [];
    const ask = new ClientAsks().asker(caller('k'), sessionIdFor({ sampling: {} }), (m) => sent.push(m));
    const answer = await ask(elicit, new AbortController().signal);
    expect(answer).toEqual({ error: { code: -32600, message: expect.stringContaining('elicitation (form mode)') } });
    expect(sent).toEqual([]);
  });

  it("settles with the client's response from the same key and session only", async () => {
    const asks = new ClientAsks();
    const session = sessionIdFor({ elicitation: {} });
    const sent: Array<{ id: string }> = [];
    const pending = asks.asker(caller('k'), session, (m) => sent.push(m as { id: string }))(elicit, new AbortController().signal);
    const id = sent[0]!.id;
    expect(sent[0]).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create', params: elicit.params });
    asks.answered(caller('other'), session, { id, result: { action: 'decline' } });
    asks.answered(caller('k'), `${session}x`, { id, result: { action: 'decline' } });
    asks.answered(caller('k'), session, { id, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(await pending).toEqual({ result: { action: 'accept', content: { name: 'Ada' } } });
  });

  it('a call that ends first settles it with an error and tells the client notifications/cancelled', async () => {
    const asks = new ClientAsks();
    const sent: Array<Record<string, unknown>> = [];
    const controller = new AbortController();
    const pending = asks.asker(caller('k'), sessionIdFor({ elicitation: {} }), (m) => sent.push(m as Record<string, unknown>))(
      elicit,
      controller.signal,
    );
    controller.abort();
    expect(await pending).toMatchObject({ error: { code: -32600 } });
    expect(sent[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: sent[0]!.id } });
  });
});
