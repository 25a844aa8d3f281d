import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** No inline script or style, no eval, no other origin, no framing (docs/console.md). */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ASSETS = {
  '/console': ['index.html', 'text/html; charset=utf-8'],
  '/console/console.js': ['console.js', 'text/javascript; charset=utf-8'],
  '/console/connections.js': ['connections.js', 'text/javascript; charset=utf-8'],
  '/console/console.css': ['console.css', 'text/css; charset=utf-8'],
} as const;

function secured(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .type(type)
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
    .header('cache-control', 'no-cache');
}

/** `GET /console` needs no key to load: it signs in with one and sends it as a bearer header to the admin API. */
export function consoleRoutes() {
  const dir = new URL('./static/', import.meta.url);
  const files = Object.entries(ASSETS).map(([path, [file, type]]) => ({ path, type, body: readFileSync(new URL(file, dir)) }));
  return async function plugin(app: FastifyInstance): Promise<void> {
    for (const { path, type, body } of files) {
      app.get(path, { schema: { hide: true } }, async (_request, reply) => secured(reply, type).send(body));
    }
  };
}
