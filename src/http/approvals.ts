import { Type } from 'typebox';
import { ApprovalFilterSchema, type ApprovalRecord } from '../protocol/approval.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import type { Caller, PipelineDeps } from '../pipeline/types.js';
import type { Workspace } from '../tools/workspace-types.js';
import { LOCAL_CALLER } from './auth.js';
import { refuseCrossOrigin } from './origin.js';
import { routes } from './routes.js';

/** Listings are bounded: a page of pending requests, or of the most recent decisions. */
const APPROVALS_LIMIT = { default: 50, max: 500 };

const Id = Type.Object({ id: Type.String({ maxLength: 128 }) });

/** A request that no longer waits, or never did, for the person who asked: the envelope's 404, the same for another tenant's. */
function unknownApproval(): GatewayError {
  return new GatewayError('NOT_FOUND', {
    message: 'No approval request with this id: it is unknown, expired before anyone decided it, or was decided too long ago to be kept.',
  });
}

/**
 * Whether the file a pending request's diff was made against is still the one there: the call is bound to its arguments, not to the file,
 * so a person deciding late must be told that what the call would now change differs from the diff (docs/policy.md).
 */
async function withFreshness(record: ApprovalRecord, deps: PipelineDeps): Promise<ApprovalRecord> {
  const preview = record.preview;
  if (record.status !== 'pending' || preview.kind !== 'diff' || preview.path === '') return record;
  const stampNow = deps.registry.get(record.tool)?.tool.stampNow;
  if (!stampNow) return record;
  let ws: Workspace;
  try {
    ws = deps.workspaces.of(record.tenant);
  } catch {
    return record;
  }
  const now = await stampNow(preview.path, ws);
  const base = preview.base;
  const changed =
    base === null ? now !== null : now === null || now.file_mtime_ms !== base.file_mtime_ms || now.file_size_bytes !== base.file_size_bytes;
  return { ...record, preview: { ...preview, file_changed: changed } };
}

/**
 * The approval routes. An admin key sees and decides only its own tenant's approvals; only the unauthenticated loopback caller (no keys
 * configured) sees every tenant's.
 */
export function approvalRoutes(deps: PipelineDeps) {
  return routes((app) => {
    const tenantOf = (caller: Caller) => (caller === LOCAL_CALLER ? null : caller.tenant);
    const fresh = (records: ApprovalRecord[]) => Promise.all(records.map((record) => withFreshness(record, deps)));

    app.get(
      '/approvals',
      {
        config: { scope: 'admin' },
        schema: {
          summary: 'Approval requests: pending ones oldest first, or decided ones (all, or of one status) most recent first',
          querystring: Type.Object(
            {
              status: Type.Optional(ApprovalFilterSchema),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: APPROVALS_LIMIT.max, default: APPROVALS_LIMIT.default })),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ approvals: Type.Array(schemaRef('Approval')) }), ...errorResponses(400, 401, 403, 503) },
        },
      },
      async (request) => {
        const { status = 'pending', limit = APPROVALS_LIMIT.default } = request.query;
        const approvals = await deps.state.listApprovals(tenantOf(request.caller), { status, limit }, deps.clock.now());
        return { approvals: await fresh(approvals) };
      },
    );

    app.get(
      '/approvals/:id',
      {
        config: { scope: 'admin' },
        schema: {
          summary: 'One approval request with its preview',
          params: Id,
          response: { 200: schemaRef('Approval'), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => {
        const { id } = request.params;
        const record = await deps.state.getApproval(id, tenantOf(request.caller), deps.clock.now());
        if (!record) throw unknownApproval();
        return withFreshness(record, deps);
      },
    );

    app.post(
      '/approvals/:id',
      {
        config: { scope: 'admin' },
        preHandler: refuseCrossOrigin,
        schema: {
          summary: 'Approve or deny a pending call',
          params: Id,
          body: Type.Object(
            { decision: Type.Enum(['approve', 'deny']), reason: Type.Optional(Type.String({ maxLength: 1000 })) },
            { additionalProperties: false },
          ),
          response: { 200: schemaRef('Approval'), ...errorResponses(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request) => {
        const { id } = request.params;
        const { decision, reason } = request.body;
        const status = decision === 'approve' ? 'approved' : 'denied';
        const history = { ttlMs: deps.config.approvals.history_ms, count: deps.config.approvals.history_count };
        const by = request.caller.keyId;
        const now = deps.clock.now();
        const outcome = await deps.state.decideApproval(
          id,
          tenantOf(request.caller),
          { status, by, history, ...(reason !== undefined && { reason }) },
          now,
        );
        if (!outcome) throw unknownApproval();
        const { record } = outcome;
        if (outcome.outcome === 'already') {
          const when = record.decided_at === undefined ? '' : ` at ${new Date(record.decided_at).toISOString()}`;
          throw new GatewayError('CONFLICT', {
            message: `Approval request ${id} was already ${record.status} by ${record.decided_by ?? 'an earlier decision'}${when}${record.reason ? ` (reason: ${record.reason})` : ''}; a decision is final.`,
            details: { status: record.status, decided_by: record.decided_by, decided_at: record.decided_at, reason: record.reason },
          });
        }
        request.log.info({ approval_id: id, decision, key_id: by, user: record.user }, 'approval decided');
        // The operator's decision is a permission decision of its own; the call it admits leaves a record when it runs.
        deps.audit?.record(
          {
            kind: 'approval',
            tenant: record.tenant,
            key_id: by,
            ...(record.user !== undefined && { user: record.user }),
            session_id: record.session_id,
            request_id: request.id,
            tool: record.tool,
            approval_id: id,
            decision: status,
            decided_by: by,
            ...(reason !== undefined && { reason }),
          },
          false,
        );
        deps.approvalEvents?.decided(record);
        return record;
      },
    );
  });
}
