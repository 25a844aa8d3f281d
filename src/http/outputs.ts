import { Type } from 'typebox';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import type { SpillStore } from '../spill/spill-store.js';
import { counted } from '../shared/count.js';
import { routes } from './routes.js';

/**
 * Parse a single-range `Range: bytes=…` header (RFC 9110 14.1.2) against a size. Returns undefined for the whole body; multi-range requests
 * get the whole body too, which the RFC allows, and so does a range unit other than bytes.
 */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  if (header === undefined) return undefined;
  // RFC 9110 14.2: a range unit the server does not understand MUST be ignored; units are case-insensitive (14.1).
  const unit = /^\s*([^=\s]*)\s*=/.exec(header)?.[1];
  if (unit === undefined || unit.toLowerCase() !== 'bytes') return undefined;
  const match = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) {
    if (/^bytes=[\d\s,-]+$/i.test(header.trim()) && header.includes(',')) return undefined;
    throw new GatewayError('RANGE_NOT_SATISFIABLE', {
      message: 'The Range header is malformed; use "bytes=start-end".',
      details: { size },
    });
  }
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) {
    throw new GatewayError('RANGE_NOT_SATISFIABLE', {
      message: `The range is outside the output of ${counted(size, 'byte')}.`,
      details: { size },
    });
  }
  return { start, end };
}

const OutputSchema = {
  summary: 'The full text of an output cut by a budget',
  description: "Supports a single `Range: bytes=start-end`. Only the key's own tenant can read an output; any other id is 404.",
  params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
  response: { ...errorResponses(401, 403, 404, 416) },
};

export function outputsRoutes(spill: SpillStore) {
  return routes((app) => {
    app.get('/outputs/:id', { config: { scope: 'execute' }, schema: OutputSchema }, async (request, reply) => {
      const { id } = request.params;
      const tenant = request.caller.tenant;
      const notFound = new GatewayError('NOT_FOUND', { message: 'No output with this id.' });
      const info = await spill.stat(tenant, id);
      if (!info) throw notFound;
      const rangeHeader = request.headers.range;
      let range: { start: number; end: number } | undefined;
      try {
        range = parseRange(rangeHeader, info.size);
      } catch (err) {
        reply.header('content-range', `bytes */${info.size}`);
        throw err;
      }
      const read = await spill.get(tenant, id, range);
      if (!read) throw notFound;
      reply
        .header('content-type', 'text/plain; charset=utf-8')
        .header('accept-ranges', 'bytes')
        .header('etag', `"${info.sha256}"`)
        .header('x-content-sha256', info.sha256);
      if (range) {
        reply
          .code(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
          .header('content-length', String(range.end - range.start + 1));
      } else {
        reply.header('content-length', String(info.size));
      }
      return reply.send(read.body);
    });
  });
}
