import { request, type Dispatcher } from 'undici';
import { findForbidden } from '../tools/http/index.js';
import { signature } from './signature.js';

/** How one delivery attempt ended: a closed set, the outcome label of the delivery counters. */
export type PostOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'http_error'; status: number }
  | { outcome: 'network_error'; error: string }
  | { outcome: 'refused'; error: string };

interface SignedPost {
  url: string;
  /** The exact bytes sent and signed. */
  body: string;
  secret: string;
  /** Headers besides content-type and the signature (ids, the attempt number). */
  headers: Record<string, string>;
  /** The SSRF-guarded pool, or the open one where private targets are allowed. */
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/**
 * One signed POST (`x-toolgate-signature`, see docs/async.md): any 2xx
 * delivers it; redirects are not followed. A refusal by the SSRF guard is
 * its own outcome, since retrying cannot change it.
 */
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
    // The receiver's answer is not ours to keep; reading it frees the connection for reuse.
    await response.body.dump({ limit: 65_536 }).catch(() => undefined);
    const status = response.statusCode;
    return status >= 200 && status < 300 ? { outcome: 'delivered', status } : { outcome: 'http_error', status };
  } catch (err) {
    const forbidden = findForbidden(err);
    if (forbidden) return { outcome: 'refused', error: forbidden.message };
    return { outcome: 'network_error', error: (err as Error).message };
  }
}
