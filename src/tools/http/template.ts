import { GatewayError } from '../../protocol/errors.js';

/** A configured URL with `{arg}` placeholders, checked once at start-up. */
export interface UrlTemplate {
  /** Fixed: placeholders may not touch the scheme, host or port. */
  origin: string;
  /** Names of the arguments the URL consumes. */
  placeholders: ReadonlySet<string>;
  /** The request path (with its query) for these arguments; throws INVALID_ARGS. */
  expand(args: Record<string, unknown>): string;
}

type Piece = { literal: string } | { arg: string; inPath: boolean };

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
// Visible ASCII except braces: anything else in the configured text would be sent unencoded.
const LITERAL = /^[\x21-\x7a\x7c\x7e]*$/;

function invalidArg(name: string, message: string): GatewayError {
  return new GatewayError('INVALID_ARGS', {
    message: `Argument "${name}" ${message}.`,
    details: { errors: [{ path: `/${name}`, message }] },
  });
}

function encode(name: string, text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    throw invalidArg(name, 'is not valid Unicode text');
  }
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function expandArg(name: string, value: unknown, inPath: boolean): string {
  if (value === undefined || value === null) throw invalidArg(name, 'is required by the URL');
  const text = stringify(value);
  // Every character is percent-encoded, but a whole segment of "." or ".." is still a dot-segment to URL normalisers (also before a `;`,
  // encoded as %3B, for a server that decodes it before dropping a segment's parameters), and an empty one changes which resource the
  // path names (DELETE /users/{id} with id "" → DELETE /users/).
  if (inPath && (text === '' || /^\.{1,2}(?:;|$)/.test(text))) throw invalidArg(name, 'cannot be empty, "." or ".." in the URL path');
  return encode(name, text);
}

/** Parse a URL with `{arg}` placeholders in path and query; a plain Error when an argument could change the origin, or the URL is not valid. */
export function compileUrlTemplate(template: string): UrlTemplate {
  const match = /^(https?):\/\/([^/?#]*)(.*)$/is.exec(template);
  if (!match) throw new Error('url must be an absolute http:// or https:// URL');
  const [, scheme, authority = '', tail = ''] = match;
  if (/[{}]/.test(authority)) throw new Error('url: placeholders may only fill the path and query, never the host or port');
  if (authority.includes('@')) throw new Error('url: credentials in the URL are not supported; send them in a header with ${VAR}');
  let origin: string;
  try {
    origin = new URL(`${scheme}://${authority}`).origin;
  } catch {
    throw new Error(`url: "${authority}" is not a valid host`);
  }
  if (tail.includes('#')) throw new Error('url: a fragment is never sent to the server; remove it');
  const rest = tail.startsWith('/') ? tail : `/${tail}`;

  const queryStart = rest.includes('?') ? rest.indexOf('?') : Infinity;
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of rest.matchAll(PLACEHOLDER)) {
    pieces.push({ literal: rest.slice(last, m.index) }, { arg: m[1]!, inPath: m.index < queryStart });
    last = m.index + m[0].length;
  }
  pieces.push({ literal: rest.slice(last) });
  for (const piece of pieces) {
    if ('literal' in piece && !LITERAL.test(piece.literal)) {
      throw new Error(`url: "${piece.literal}" holds a character that must be percent-encoded, or a stray brace`);
    }
  }

  return {
    origin,
    placeholders: new Set(pieces.flatMap((p) => ('arg' in p ? [p.arg] : []))),
    expand: (args) => pieces.map((p) => ('literal' in p ? p.literal : expandArg(p.arg, args[p.arg], p.inPath))).join(''),
  };
}

/** Append arguments to a path's query string: arrays repeat the key, objects are sent as JSON, null and undefined are left out. */
export function appendQuery(path: string, params: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (item !== undefined && item !== null) pairs.push(`${encode(key, key)}=${encode(key, stringify(item))}`);
    }
  }
  if (pairs.length === 0) return path;
  const separator = !path.includes('?') ? '?' : /[?&]$/.test(path) ? '' : '&';
  return `${path}${separator}${pairs.join('&')}`;
}
