import { request, type Dispatcher } from 'undici';
import { findForbidden } from '../tools/http/index.js';
import { signature } from './signature.js';

export type PostOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'http_error'; status: number }
  | { outcome: 'network_error'; error: string }
  | { outcome: 'refused'; error: string };

interface SignedPost {
  url: string;
  body: string;
  secret: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/** Any 2xx delivers; redirects are not followed; an SSRF refusal is its own outcome, as retrying cannot change it. */
export async function postSigned(post: SignedPost): Promise<PostOutcome> {
  try {
    const response = await request(post.url, {
      method: 'POST',
      dispatcher: post.dispatcher,
      headers: { 'content-type': 'application/json', 'x-toolgate-signature': signature(post.secret, post.body), ...post.headers },
      body: post.body,
      headersTimeout: post.timeoutMs,
      bodyTimeout: post.timeoutMs,
    });
    // Reading the answer frees the connection for reuse.
    await response.body.dump({ limit: 65_536 }).catch(() => undefined);
    const status = response.statusCode;
    return status >= 200 && status < 300 ? { outcome: 'delivered', status } : { outcome: 'http_error', status };
  } catch (err) {
    const forbidden = findForbidden(err);
    if (forbidden) return { outcome: 'refused', error: forbidden.message };
    return { outcome: 'network_error', error: (err as Error).message };
  }
}
