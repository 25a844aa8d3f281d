import { Type } from 'typebox';
import type { PipelineDeps } from '../pipeline/types.js';
import { routes } from './routes.js';

const PING_TIMEOUT_MS = 1_000;

/** `work`'s answer, or a rejection once {@link PING_TIMEOUT_MS} passes: a store that hangs must not hold a probe or a scrape. */
export async function within<T>(work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `ping` resolves in time. */
async function answers(ping: () => Promise<void>): Promise<boolean> {
  return within(ping).then(
    () => true,
    () => false,
  );
}

/** Which stores answer a ping in time: what /readyz reports and the `toolgate_store_up` gauge shows. */
export async function probeStores(deps: Pick<PipelineDeps, 'state' | 'spill'>): Promise<{ state: boolean; spill: boolean }> {
  const [state, spill] = await Promise.all([answers(() => deps.state.ping()), answers(() => deps.spill.ping())]);
  return { state, spill };
}

export function healthRoutes(deps: PipelineDeps) {
  return routes((app) => {
    app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
      status: 'ok' as const,
    }));

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: the state store and the spill store answer, and the audit trail (when on) can be written',
          response: {
            200: Type.Object({ status: Type.Literal('ready') }),
            503: Type.Object({ status: Type.Literal('not_ready'), failed: Type.Array(Type.String()) }),
          },
        },
      },
      async (_request, reply) => {
        const { state, spill } = await probeStores(deps);
        const audit = deps.audit?.writable ?? true;
        const failed = [...(state ? [] : ['state_store']), ...(spill ? [] : ['spill_store']), ...(audit ? [] : ['audit_store'])];
        if (failed.length > 0) return reply.code(503).send({ status: 'not_ready', failed });
        return { status: 'ready' as const };
      },
    );
  });
}
