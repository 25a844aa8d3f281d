import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../protocol/errors.js';

/**
 * Requests that arrive once the app has begun to close are answered with our NOT_READY envelope, not fastify's own 503
 * (`return503OnClosing: false`). A connection that has not sent a byte by then is closed at once: Node's server.close() counts it as busy
 * and would wait for it until the request timeout (clients open such connections ahead, and leave them when their stream ends).
 */
export function installShutdown(app: FastifyInstance): void {
  let closing = false;
  const silent = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    silent.add(socket);
    const forget = () => silent.delete(socket);
    socket.once('data', forget);
    socket.once('close', forget);
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of silent) socket.destroy();
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) throw new GatewayError('NOT_READY', { retryAfterMs: 1_000 });
    done();
  });
}
