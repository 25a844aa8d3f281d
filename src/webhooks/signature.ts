import { createHmac } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the `x-toolgate-signature` header of callbacks and webhooks. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
