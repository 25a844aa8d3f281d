import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { createGuardedConnector, isForbiddenAddress, type ConnectorFactory } from './ssrf.js';

/**
 * The two connection pools HTTP tools share. The private-network allowance
 * is a per-tool setting, but undici decides where to connect below the
 * request (a connector never sees which tool asked), so the allowance picks a
 * pool: tools without `allow_private_network` use `guarded`, whose every
 * connection is checked; tools with it use `open`. Keeping them apart also
 * means a guarded tool can never reuse a kept-alive socket that an open tool
 * opened to a private address.
 */
export interface HttpDispatchers {
  guarded: Dispatcher;
  open: Dispatcher;
}

export interface HttpDispatcherOptions {
  /** TCP + TLS set-up limit per connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** How long an idle kept-alive socket stays open. Default 4 s. */
  keepAliveTimeoutMs?: number;
  /** Sockets per origin. Default 32. */
  connectionsPerOrigin?: number;
  /** Replaces the SSRF policy of `guarded` (default `isForbiddenAddress`), e.g. to treat one test address as public. */
  isForbidden?: (address: string) => boolean;
  /**
   * The network edge of both pools, for tests and embedding; production
   * leaves both unset. `lookup` resolves host names (default `dns.lookup`;
   * in `guarded` its every answer is checked). `buildConnector` makes the
   * final connect step (default undici's): `guarded` calls it only for
   * addresses that passed the check. Tests put a tripwire here that refuses
   * anything outside loopback, so a broken guard cannot reach the network.
   */
  lookup?: LookupFunction;
  buildConnector?: ConnectorFactory;
}

/**
 * Both pools: undici Agents keeping one Pool per origin with keep-alive. Each
 * request sets its own headers and body timeouts from the call's deadline;
 * the values here bound any other use. Close both on shutdown.
 */
export function createHttpDispatchers(options: HttpDispatcherOptions = {}): HttpDispatchers {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const build = options.buildConnector ?? buildConnector;
  const common = {
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    connections: options.connectionsPerOrigin ?? 32,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  };
  return {
    guarded: new Agent({
      ...common,
      connect: createGuardedConnector({
        connectTimeoutMs,
        isForbidden: options.isForbidden ?? isForbiddenAddress,
        lookup: options.lookup,
        buildConnector: build,
      }),
    }),
    open: new Agent({ ...common, connect: build({ timeout: connectTimeoutMs, ...(options.lookup && { lookup: options.lookup }) }) }),
  };
}
