import type { FastifyBaseLogger } from 'fastify';
import type { Caller, PipelineDeps } from '../pipeline/types.js';
import { isGatewayError } from '../protocol/errors.js';
import { isRecord } from '../protocol/json.js';
import { RPC_ERRORS, rpcError, rpcResult, type RpcId, type RpcResponse } from '../protocol/mcp.js';

/** server/resources, "Error Handling": a resource that is not found. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * What initialize declares when upstream servers are configured: their resources, prompts and completions are served, and a change of
 * either list is told on the GET /mcp stream (mcp-listen.ts).
 */
export const OFFER_CAPABILITIES = { resources: { listChanged: true }, prompts: { listChanged: true }, completions: {} };

/** The JSON-RPC error for what reading or getting threw: the gateway's error in `data`, as tools/call's unknown tool has it. */
function rpcErrorOf(id: RpcId, method: string, err: unknown): RpcResponse {
  if (!isGatewayError(err)) throw err;
  const data = err.toCallError();
  if (err.code === 'NOT_FOUND' && method === 'resources/read') return rpcError(id, RESOURCE_NOT_FOUND, err.message, data);
  // The server's own JSON-RPC error keeps its code: what passes through is what the upstream gave.
  const upstreamCode = isRecord(err.details) ? err.details.rpc_code : undefined;
  if (typeof upstreamCode === 'number') return rpcError(id, upstreamCode, err.message, data);
  if (err.code === 'NOT_FOUND' || err.code === 'BAD_REQUEST' || err.code === 'PERMISSION_DENIED')
    return rpcError(id, RPC_ERRORS.INVALID_PARAMS, err.message, data);
  return rpcError(id, RPC_ERRORS.INTERNAL_ERROR, err.message, data);
}

const noCursor = (id: RpcId, method: string) =>
  rpcError(id, RPC_ERRORS.INVALID_PARAMS, `Invalid cursor: ${method} answers with everything in one page.`);

/**
 * The /mcp methods of the upstream servers' resources, templates, prompts and completions; undefined for any other method. Without
 * upstream servers they are not declared, and the caller answers them as unknown methods.
 */
export function answerOffer(
  deps: Pick<PipelineDeps, 'offers'>,
  id: RpcId,
  method: string,
  params: Record<string, unknown>,
  caller: Caller,
  log: FastifyBaseLogger,
): Promise<RpcResponse> | RpcResponse | undefined {
  const offers = deps.offers;
  if (!offers) return undefined;
  const listing = method === 'resources/list' || method === 'resources/templates/list' || method === 'prompts/list';
  if (listing && params.cursor !== undefined) return noCursor(id, method);
  const run = async (answer: () => Promise<Record<string, unknown>>) => {
    try {
      return rpcResult(id, await answer());
    } catch (err) {
      return rpcErrorOf(id, method, err);
    }
  };
  switch (method) {
    case 'resources/list':
      return rpcResult(id, { resources: offers.resources(caller) });
    case 'resources/templates/list':
      return rpcResult(id, { resourceTemplates: offers.templates(caller) });
    case 'prompts/list':
      return rpcResult(id, { prompts: offers.prompts(caller) });
    case 'resources/read':
      if (typeof params.uri !== 'string') return rpcError(id, RPC_ERRORS.INVALID_PARAMS, 'resources/read needs params.uri, a string.');
      return run(() => offers.readResource(caller, params.uri as string, log));
    case 'prompts/get': {
      const args = params.arguments ?? {};
      if (typeof params.name !== 'string' || !isRecord(args) || !Object.values(args).every((v) => typeof v === 'string'))
        return rpcError(id, RPC_ERRORS.INVALID_PARAMS, 'prompts/get needs params.name, a string, and string params.arguments.');
      return run(() => offers.getPrompt(caller, params.name as string, args as Record<string, string>));
    }
    case 'completion/complete':
      return run(() => offers.complete(caller, params));
    default:
      return undefined;
  }
}
