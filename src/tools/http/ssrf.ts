import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';

/** What an HTTP tool may not reach without `allow_private_network`: all but the public internet (NAT64 and 6to4 unpacked in isForbiddenAddress). */
const FORBIDDEN = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible block
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo tunnels hide an IPv4 target we cannot check
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(prefix, bits, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  const toGroups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const left = toGroups(head);
  const right = tail === undefined ? [] : toGroups(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address leads to, if it is one. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return quad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  return undefined;
}

/** Whether a literal IP address is outside the public internet; anything that is not a valid IP address is too. */
export function isForbiddenAddress(address: string): boolean {
  // A zone id (fe80::1%eth0) names an interface, not part of the address.
  const ip = address.split('%')[0]!;
  const family = net.isIP(ip);
  if (family === 4) return FORBIDDEN.check(ip, 'ipv4');
  if (family !== 6) return true;
  if (FORBIDDEN.check(ip, 'ipv6')) return true;
  const inner = embeddedIpv4(ip);
  return inner !== undefined && FORBIDDEN.check(inner, 'ipv4');
}

/** A connection refused by the SSRF guard before any packet was sent. */
export class ForbiddenAddressError extends Error {
  readonly code = 'TOOLGATE_FORBIDDEN_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(host === address ? `${address} is not a public address` : `${host} resolves to ${address}, which is not a public address`);
    this.name = 'ForbiddenAddressError';
  }
}

/** The guard's refusal behind an error a request failed with (undici wraps what the connector reports), if it was one. */
export function findForbidden(err: unknown): ForbiddenAddressError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (e instanceof ForbiddenAddressError) return e;
  }
  return undefined;
}

/** A lookup that fails when any address of the name is forbidden: Node connects only to what it returns, so DNS rebinding cannot slip by. */
function guardedLookup(isForbidden: (address: string) => boolean, resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, result) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const addresses = Array.isArray(result) ? result : [{ address: result, family: net.isIP(result) }];
      const bad = addresses.find((a) => isForbidden(a.address));
      const first = addresses[0];
      if (bad) callback(new ForbiddenAddressError(hostname, bad.address), '', 0);
      else if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
    });
  };
}

/** Makes the connector that opens sockets, given undici's connect options; undici's `buildConnector` by default. */
export type ConnectorFactory = (options: buildConnector.BuildOptions) => buildConnector.connector;

interface GuardedConnectorOptions {
  connectTimeoutMs: number;
  /** Decides which resolved addresses are refused. */
  isForbidden: (address: string) => boolean;
  /** Resolves host names; every address it returns is checked. Default `dns.lookup`. */
  lookup?: LookupFunction | undefined;
  /** Opens the socket once the address passed the check (receives the checking lookup). Default undici's `buildConnector`. */
  buildConnector?: ConnectorFactory | undefined;
}

/** A connector that checks every connection's address: IP literals here (Node skips the lookup for them), names in the lookup. */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const build = options.buildConnector ?? buildConnector;
  const connect = build({ timeout: options.connectTimeoutMs, lookup: guardedLookup(options.isForbidden, options.lookup ?? dns.lookup) });
  return (target, callback) => {
    if (net.isIP(target.hostname) !== 0 && options.isForbidden(target.hostname)) {
      const refusal = new ForbiddenAddressError(target.hostname, target.hostname);
      process.nextTick(() => callback(refusal, null));
      return;
    }
    connect(target, callback);
  };
}
