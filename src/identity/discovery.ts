/** What toolgate reads of an authorization server's metadata (RFC 8414, OpenID Connect Discovery). */
interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

const DISCOVERY_TIMEOUT_MS = 5_000;

/** RFC 8414 section 3.1: the well-known segment goes before the issuer's path; OpenID Discovery appends it after. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

async function fetchMetadata(url: string, issuer: string): Promise<IssuerMetadata> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) throw new Error(`${url} is not a JSON object`);
  // RFC 8414 section 3.3: metadata naming another issuer must not be used.
  if (body.issuer !== issuer) throw new Error(`${url} names the issuer ${JSON.stringify(body.issuer)}, not ${issuer}`);
  const text = (name: string) => (typeof body[name] === 'string' ? { [name]: body[name] } : {});
  return { issuer, ...text('jwks_uri'), ...text('introspection_endpoint') };
}

/** The issuer's metadata from the first well-known location that has it; the error names every attempt. */
export async function discover(issuer: string): Promise<IssuerMetadata> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      return await fetchMetadata(url, issuer);
    } catch (err) {
      failures.push(err instanceof Error && err.name === 'TimeoutError' ? `${url} did not answer in time` : (err as Error).message);
    }
  }
  throw new Error(`its metadata cannot be read: ${failures.join('; ')}`);
}
