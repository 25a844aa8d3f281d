import { afterAll, beforeAll } from 'vitest';
import type { AdmitRequest } from '../../src/state/state-store.js';
import { topologiesMissing } from './redis-topologies.js';

/**
 * One real topology for the test file that calls this: started before its
 * tests (failing them with an install hint when a binary is missing), stopped
 * after. The returned function gives the running topology inside a test.
 */
export function topologyForFile<T extends { stop(): Promise<void> }>(start: () => Promise<T>): () => T {
  let topology: T | undefined;
  beforeAll(async () => {
    const missing = topologiesMissing();
    if (missing) throw new Error(missing);
    topology = await start();
  }, 60_000);
  afterAll(() => topology?.stop());
  return () => {
    if (topology === undefined) throw new Error('the topology did not start');
    return topology;
  };
}

/** A call that takes a replay lease and nothing else of its tenant's: what a failover test sends to see a write refused or not resent. */
export const leaseCall = (callId: string): AdmitRequest => ({
  tenant: 'acme',
  sessionId: 's1',
  callId,
  tool: 'Deploy',
  breaker: { scope: 'Deploy', failureThreshold: 3, recoveryMs: 300_000 },
  replay: { fingerprint: 'f', leaseMs: 600_000 },
});
