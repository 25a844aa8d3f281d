import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from './browser.js';
import { step } from './step.js';

/** A loopback redirect URI (RFC 8252) served by the test: each visit's query is handed to the one waiting for it. */
export interface RedirectReceiver {
  /** http://127.0.0.1:<port>/callback */
  url: string;
  /** The query of the next visit to `url` (code and state, or error). */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startRedirectReceiver(): Promise<RedirectReceiver> {
  const arrived: URLSearchParams[] = [];
  let waiting: ((query: URLSearchParams) => void) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Signed in; you may close this window.');
    if (waiting) waiting(url.searchParams);
    else arrived.push(url.searchParams);
    waiting = undefined;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => {
      const first = arrived.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => (waiting = resolve));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What an MCP client keeps for the SDK's OAuth flow (OAuthClientProvider), in memory: the client it registered,
 * its tokens and the PKCE verifier. Where a desktop client would open a browser, the authorization URL is kept
 * for the test to open.
 */
export class MemoryOAuthClient implements OAuthClientProvider {
  /** Every authorization URL the SDK asked to open, in order. */
  readonly authorizationUrls: URL[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  /** The `state` of the latest authorization request: the redirect must bring it back (CSRF, RFC 6749 section 10.12). */
  sentState: string | undefined;

  constructor(
    readonly redirectUrl: string,
    private readonly name: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.sentState = randomBytes(16).toString('base64url');
    return this.sentState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrls.push(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier saved: the authorization was never started');
    return this.verifier;
  }
}

/**
 * A person signs in as `login` on oidc-provider's development pages at `authorizationUrl` (its login form takes
 * any password, then its consent form), and the browser lands on `receiver`: its query is returned. Each page is
 * waited for by its own button (Sign-in, then Continue), so a click never lands on the page before.
 */
export async function signIn(browser: Browser, authorizationUrl: URL, login: string, receiver: RedirectReceiver, ms: number) {
  const page = await step('opening a page', ms, () => browser.context.newPage());
  try {
    const landed = receiver.next();
    await step('the sign-in page', ms, () => page.goto(authorizationUrl.href));
    await step('the login form', ms, async () => {
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', 'any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
    });
    await step('the consent form', ms, () => page.getByRole('button', { name: 'Continue' }).click());
    const query = await step('the redirect to the client', ms, () => landed);
    // Closing a page while its navigation is still in flight can hang chromium: the landing page loads first.
    await step('the landing page', ms, () => page.waitForURL((url) => url.href.startsWith(receiver.url)));
    return query;
  } finally {
    await step('closing the page', ms, () => page.close());
  }
}
