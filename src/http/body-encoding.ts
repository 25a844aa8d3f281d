import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../protocol/errors.js';

const UTF8 = /^"?utf-?8"?$/i;

/**
 * UNSUPPORTED_MEDIA_TYPE for a body the JSON parser would misread: fastify ignores Content-Encoding and the charset parameter and parses
 * every body as UTF-8, so a gzipped or UTF-16 body would be "not valid JSON" and a plain one labelled gzip would run as if unlabelled. JSON
 * is UTF-8 (RFC 8259) and the gateway decodes no content coding; checked from the headers, before the body is read.
 */
export function unreadableBody(headers: IncomingHttpHeaders): GatewayError | undefined {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return new GatewayError('UNSUPPORTED_MEDIA_TYPE', {
      message: `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; send the body uncompressed.`,
    });
  }
  const charset = /;\s*charset\s*=\s*([^;\s]*)/i.exec(headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !UTF8.test(charset)) {
    return new GatewayError('UNSUPPORTED_MEDIA_TYPE', {
      message: `charset ${JSON.stringify(charset.slice(0, 40))} is not supported; JSON bodies are UTF-8.`,
    });
  }
  return undefined;
}
