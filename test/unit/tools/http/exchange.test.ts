import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createExchange } from '../../../../src/tools/http/exchange.js';
import { callContext, failure } from '../../../integration/http-tools/helpers.js';

describe('createExchange: the first request goes to the tool origin', () => {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent.get('http://api.example.com').intercept({ path: '/ok', method: 'GET' }).reply(200, 'fine');
  const exchange = createExchange({
    origin: 'http://api.example.com',
    dispatcher: agent,
    retries: 0,
    maxResponseBytes: 1024,
    followRedirects: 0,
  });
  const target = (path: string) => ({ path, method: 'GET' as const, headers: {}, body: undefined });

  it.each([':8080/steal', '.attacker.com/x', '@attacker.com/x', 'http://attacker.com/x', ''])(
    'a path %j that does not keep it there is PERMISSION_DENIED (reason origin), and nothing is sent',
    async (path) => {
      expect(await failure(() => exchange(target(path), callContext(1000)))).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { reason: 'origin' },
      });
    },
  );

  it('a path from "/" is sent there', async () => {
    expect(await exchange(target('/ok'), callContext(1000))).toEqual({ text: 'fine' });
    agent.assertNoPendingInterceptors();
  });
});
