import { request, type Dispatcher } from 'undici';
import { metadataUrls } from '../identity/index.js';
import type { ProviderSettings } from './settings.js';

/** A token endpoint's answer (RFC 6749 section 5.1), as read. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  /** Seconds. */
  expires_in?: number;
  scope?: string;
  id_token?: string;
}

/** The provider refused or failed; `oauthError` is its RFC 6749 error code when it gave one (`invalid_grant`: the grant is gone). */
export class ProviderError extends Error {
  constructor(
    readonly oauthError: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

interface Endpoints {
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  issuer?: string;
}

/** What toolgate asks one provider, as its OAuth client (confidential: client_secret_basic). */
export interface ProviderClient {
  readonly settings: ProviderSettings;
  /** The provider's authorization request (code, PKCE S256, state) for `scopes`. */
  authorizationUrl(request: { state: string; challenge: string; scopes: string[]; redirectUri: string }): Promise<string>;
  exchangeCode(code: string, verifier: string, redirectUri: string): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
  /** RFC 8693: `subjectToken` (an access token) traded for one for the provider's `token_exchange` audience or resource, with `scopes`. */
  exchange(subjectToken: string, scopes: string[]): Promise<TokenSet>;
  /** RFC 7009 at the revocation endpoint; false when the provider has none. Throws when it fails. */
  revoke(token: string, hint: 'refresh_token' | 'access_token'): Promise<boolean>;
  /** The issuer an ID token must name: the configured or discovered one. */
  issuer(): Promise<string | undefined>;
}

/** Every request to a provider ends within this, headers and body together (a refresh's lease outlasts two). */
export const REQUEST_MS = 10_000;
const MAX_BODY_BYTES = 65_536;

async function readJson(body: Dispatcher.ResponseData['body']): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A client of `settings`' provider; its endpoints are discovered once, on first use, when it names an issuer. */
export function createProviderClient(settings: ProviderSettings, dispatcher: Dispatcher): ProviderClient {
  let endpoints: Promise<Endpoints> | undefined;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(settings.client_id)}:${encodeURIComponent(settings.client_secret)}`).toString('base64')}`;

  const send = async (url: string, init: { method: 'GET' | 'POST'; form?: Record<string, string> }) => {
    const response = await request(url, {
      method: init.method,
      dispatcher,
      headersTimeout: REQUEST_MS,
      bodyTimeout: REQUEST_MS,
      signal: AbortSignal.timeout(REQUEST_MS),
      headers: {
        accept: 'application/json',
        ...(init.form && { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(init.form && { body: new URLSearchParams(init.form).toString() }),
    });
    return { status: response.statusCode, body: await readJson(response.body) };
  };

  const discover = async (issuer: string): Promise<Endpoints> => {
    const failures: string[] = [];
    for (const url of metadataUrls(issuer)) {
      const { status, body } = await send(url, { method: 'GET' }).catch((err: Error) => ({ status: 0, body: undefined, err }));
      const text = (name: string) => (typeof body?.[name] === 'string' ? (body[name] as string) : undefined);
      const authorization = text('authorization_endpoint');
      const token = text('token_endpoint');
      if (status === 200 && body?.issuer === issuer && authorization && token) {
        const revocation = text('revocation_endpoint');
        return {
          issuer,
          authorization_endpoint: authorization,
          token_endpoint: token,
          ...(revocation && { revocation_endpoint: revocation }),
        };
      }
      failures.push(`${url} answered ${status || 'nothing'}`);
    }
    throw new ProviderError(undefined, `provider ${settings.name}: its metadata cannot be read: ${failures.join('; ')}`);
  };

  const endpointsOf = (): Promise<Endpoints> => {
    if (settings.issuer === undefined) {
      return Promise.resolve({
        authorization_endpoint: settings.authorization_endpoint!,
        token_endpoint: settings.token_endpoint!,
        ...(settings.revocation_endpoint && { revocation_endpoint: settings.revocation_endpoint }),
      });
    }
    // A failed discovery is tried again by the next call.
    endpoints ??= discover(settings.issuer).catch((err: unknown) => {
      endpoints = undefined;
      throw err;
    });
    return endpoints;
  };

  const token = async (form: Record<string, string>): Promise<TokenSet> => {
    const { token_endpoint } = await endpointsOf();
    const { status, body } = await send(token_endpoint, { method: 'POST', form });
    if (status === 200 && typeof body?.access_token === 'string' && body.access_token !== '') {
      const number = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in);
      return {
        access_token: body.access_token,
        ...(typeof body.refresh_token === 'string' && body.refresh_token !== '' && { refresh_token: body.refresh_token }),
        ...(Number.isFinite(number) && number > 0 && { expires_in: number }),
        ...(typeof body.scope === 'string' && { scope: body.scope }),
        ...(typeof body.id_token === 'string' && { id_token: body.id_token }),
      };
    }
    const code = typeof body?.error === 'string' ? body.error : undefined;
    // The provider's description is not repeated: it may echo what was sent.
    throw new ProviderError(code, `provider ${settings.name}: the token endpoint answered ${status}${code ? ` ${code}` : ''}`);
  };

  return {
    settings,
    async authorizationUrl({ state, challenge, scopes, redirectUri }) {
      const url = new URL((await endpointsOf()).authorization_endpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', settings.client_id);
      url.searchParams.set('redirect_uri', redirectUri);
      if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', challenge);
      url.searchParams.set('code_challenge_method', 'S256');
      return url.href;
    },
    exchangeCode: (code, verifier, redirectUri) =>
      token({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri }),
    refresh: (refreshToken) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    exchange: (subjectToken, scopes) =>
      token({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        ...(settings.token_exchange?.audience !== undefined && { audience: settings.token_exchange.audience }),
        ...(settings.token_exchange?.resource !== undefined && { resource: settings.token_exchange.resource }),
        ...(scopes.length > 0 && { scope: scopes.join(' ') }),
      }),
    async revoke(value, hint) {
      const { revocation_endpoint } = await endpointsOf();
      if (!revocation_endpoint) return false;
      const { status } = await send(revocation_endpoint, { method: 'POST', form: { token: value, token_type_hint: hint } });
      if (status !== 200) throw new ProviderError(undefined, `provider ${settings.name}: the revocation endpoint answered ${status}`);
      return true;
    },
    async issuer() {
      return settings.issuer ?? (await endpointsOf()).issuer;
    },
  };
}
