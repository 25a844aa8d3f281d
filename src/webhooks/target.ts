import { isIP } from 'node:net';
import { isForbiddenAddress } from '../tools/http/index.js';

/**
 * Why a URL that toolgate is to POST to (an async callback, the approvals
 * webhook) cannot be taken, or undefined. `setting` names where it came from
 * in the message. Host names are checked at every connection by the guarded
 * pool, as HTTP tools' are; what can be told from the URL alone (not an
 * absolute http(s) URL, a literal address outside the public internet, a
 * localhost name) is refused here, before anything is sent.
 */
export function targetProblem(url: string, allowPrivateNetwork: boolean, setting: string, allowance: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${setting}: ${JSON.stringify(url)} is not an absolute URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${setting}: must be an http(s) URL, got ${parsed.protocol}`;
  if (allowPrivateNetwork) return undefined;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const local = isIP(host) === 0 ? host === 'localhost' || host.endsWith('.localhost') : isForbiddenAddress(host);
  if (!local) return undefined;
  return `${setting}: ${host} is not a public address; it may reach loopback or private networks only with ${allowance}`;
}
