/** What an RFC 7662 introspection answer holds that toolgate reads; the rest are the token's claims. */
interface Introspected extends Record<string, unknown> {
  active: boolean;
  exp?: number;
  aud?: string | string[];
  iss?: string;
}

const INTROSPECTION_TIMEOUT_MS = 5_000;

/** Asks `endpoint` about `token` with the client's credentials (client_secret_basic); throws when it does not answer. */
export async function introspect(endpoint: string, client: { id: string; secret: string }, token: string): Promise<Introspected> {
  const credentials = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64');
  const response = await fetch(endpoint, {
    method: 'POST',
    signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
    headers: {
      authorization: `Basic ${credentials}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
  });
  if (!response.ok) throw new Error(`${endpoint} answered ${response.status}`);
  const body = (await response.json()) as unknown;
  if (typeof body !== 'object' || body === null || typeof (body as Introspected).active !== 'boolean') {
    throw new Error(`${endpoint} did not answer an introspection response`);
  }
  return body as Introspected;
}
