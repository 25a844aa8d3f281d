import { describe, expect, it } from 'vitest';
import { CallContext } from '../../../src/pipeline/call-context.js';
import type { CallGuard } from '../../../src/pipeline/guard.js';
import type { CallAbort } from '../../../src/pipeline/timeout.js';
import type { ExecContext, PipelineDeps, PlannedCall } from '../../../src/pipeline/types.js';
import type { CredentialProvider, ToolCaller } from '../../../src/tools/credentials.js';

function contextFor(credentials: CredentialProvider): CallContext {
  const guard = { spill: () => Promise.reject(new Error('no spill')) } as unknown as CallGuard;
  const abort = { aborted: false, deadline: 30_000 } as unknown as CallAbort;
  const call = { id: 'call_1', name: 'weather' } as unknown as PlannedCall;
  const ctx = { caller: { tenant: 'acme', keyId: 'key-1' }, sessionId: 'session-1' } as unknown as ExecContext;
  const deps = { config: { limits: { image_bytes: 1 } }, credentials } as unknown as PipelineDeps;
  return new CallContext(call, guard, abort, undefined, ctx, deps);
}

describe('CallContext: the caller and the credentials a tool sees', () => {
  it('names the tenant and key of the request, and no user yet', () => {
    const call = contextFor({
      problem: () => undefined,
      for: () => ({ get: () => Promise.reject(new Error('none')), token: () => Promise.reject(new Error('none')) }),
    });
    expect(call.caller).toEqual({ tenant: 'acme', keyId: 'key-1', user: undefined });
  });

  it('asks the provider for the credentials of this tool and this caller', async () => {
    const asked: Array<[string, ToolCaller | undefined]> = [];
    const call = contextFor({
      problem: () => undefined,
      for: (tool, caller) => {
        asked.push([tool, caller]);
        return { get: (name) => Promise.resolve(`${name}-for-${tool}`), token: () => Promise.reject(new Error('none')) };
      },
    });
    expect(await call.credentials.get('TOKEN')).toBe('TOKEN-for-weather');
    expect(asked).toEqual([['weather', { tenant: 'acme', keyId: 'key-1', user: undefined }]]);
  });
});
