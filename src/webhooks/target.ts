import { isIP } from 'node:net';
import { isForbiddenAddress } from '../tools/http/index.js';

/** What the URL alone tells (not absolute http(s), a non-public literal address, localhost) is refused here; names at each connection. */
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
