import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { createGuardedConnector, isForbiddenAddress, type ConnectorFactory } from './ssrf.js';

/**
 * The two pools HTTP tools share: `guarded`, whose every connection is checked, and `open` for tools with `allow_private_network` (a
 * connector never sees which tool asked). Apart, a guarded tool never reuses a socket an open tool opened to a private address.
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
  /** The network edge of both pools, for tests (a loopback-only tripwire) and embedding: `lookup` resolves names, `buildConnector` connects. */
  lookup?: LookupFunction;
  buildConnector?: ConnectorFactory;
}

/** Both pools, one undici Pool per origin with keep-alive; each request sets its timeouts from the call's deadline. Close both on shutdown. */
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
