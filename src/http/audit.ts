import { Type } from 'typebox';
import { queryAudit } from '../audit/index.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import type { PipelineDeps } from '../pipeline/types.js';
import { USER_MAX } from './on-behalf.js';
import { routes } from './routes.js';

const MAX_LIMIT = 1_000;

const AuditSchema = {
  summary: "The audit records of the key's tenant, newest first",
  querystring: Type.Object(
    {
      session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      user: Type.Optional(Type.String({ minLength: 1, maxLength: USER_MAX, description: 'Records of calls for this user only.' })),
      tool: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'Records at or after this time (RFC 3339).' })),
      limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 100 }),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      records: Type.Array(Type.Object({}, { additionalProperties: true, description: 'One audit record (docs/audit.md).' })),
    }),
    ...errorResponses(400, 401, 403, 404, 503),
  },
};

/**
 * GET /audit: the caller's tenant's audit records, newest first, at most `limit` (default 100, at most 1000); never another tenant's. A
 * scan of the newest files or objects of each chain (docs/audit.md).
 */
export function auditRoutes(deps: PipelineDeps) {
  return routes((app) => {
    app.get('/audit', { config: { scope: 'admin' }, schema: AuditSchema }, async (request) => {
      const trail = deps.audit;
      if (!trail) throw new GatewayError('NOT_FOUND', { message: 'The audit trail is off (audit: false).' });
      const query = request.query;
      // The newest records are in the answer, not only those written by the last flush.
      if (trail.writable) await trail.flush();
      const records = await queryAudit(trail.store, {
        tenant: request.caller.tenant,
        limit: query.limit,
        ...(query.session_id !== undefined && { sessionId: query.session_id }),
        ...(query.user !== undefined && { user: query.user }),
        ...(query.tool !== undefined && { tool: query.tool }),
        ...(query.since !== undefined && { since: Date.parse(query.since) }),
      });
      return { records };
    });
  });
}
