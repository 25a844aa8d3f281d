import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../protocol/errors.js';

/**
 * Requests that arrive once the app has begun to close are answered with our NOT_READY envelope, not fastify's own 503
 * (`return503OnClosing: false`).
 */
export function installShutdown(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) throw new GatewayError('NOT_READY', { retryAfterMs: 1_000 });
    done();
  });
}
