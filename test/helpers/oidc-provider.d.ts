/** oidc-provider ships no types; the part of its API the tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface AccessTokenInfo {
    clientId: string;
    accountId?: string;
    kind: string;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    proxy: boolean;
    issuer: string;
    AccessToken: { find(value: string): Promise<AccessTokenInfo | undefined> };
  }
}
