import type { FastifyBaseLogger } from 'fastify';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import {
  gatewayUri,
  mayGet,
  mayRead,
  resourcesName,
  upstreamOfPrompt,
  upstreamOfUri,
  visiblePrompts,
  visibleResources,
  visibleTemplates,
} from '../catalog/offers.js';
import { GatewayError } from '../protocol/errors.js';
import { isRecord } from '../protocol/json.js';
import { classifyMcpFailure, upstreamDown } from '../tools/mcp/failure.js';
import type { UpstreamOffering } from '../tools/mcp/offers.js';
import { truncationRecord } from './budget.js';
import { cutText, literalBytes } from './cut-text.js';
import { spillFor } from './spill-health.js';
import type { Caller, PipelineDeps, UpstreamOffers } from './types.js';

/**
 * Reading an upstream's resources, getting its prompts and completing their arguments for a caller (docs/mcp.md, "Resources and
 * prompts"): behind its key and the policy (catalog/offers.ts), each credential in what comes back redacted when the output guardrails are
 * on for the name the caller reached it by, and a resource's text over the per-call budget cut and spilled whole, as a tool output is.
 */

type OfferDeps = Pick<PipelineDeps, 'policy' | 'guardrails' | 'spill' | 'spillHealth' | 'metrics' | 'config'>;

/** The `_meta` key of a resource's contents that was cut: its `truncated` record. */
const TRUNCATED_META = 'toolgate/truncated';

const notFound = (what: string) => new GatewayError('NOT_FOUND', { message: `${what.slice(0, 200)}: no such resource or prompt here.` });

/** What the key does not allow is answered as missing (a caller learns nothing of what its key cannot reach); what a rule withholds, as denied. */
function refusedOrMissing(kind: 'resource' | 'prompt', name: string, known: boolean): GatewayError {
  return known
    ? new GatewayError('PERMISSION_DENIED', {
        message: `The policy or the API key does not let this caller reach the ${kind} ${name.slice(0, 200)}.`,
      })
    : notFound(`No ${kind} ${name}`);
}

/** A prompt message whose embedded resource or resource link names its resource by the gateway's URI, so a client can read it here. */
function withGatewayUris<M extends GetPromptResult['messages'][number]>(upstream: UpstreamOffering, message: M): M {
  const content = message.content;
  if (content.type === 'resource')
    return { ...message, content: { ...content, resource: { ...content.resource, uri: gatewayUri(upstream, content.resource.uri) } } };
  if (content.type === 'resource_link') return { ...message, content: { ...content, uri: gatewayUri(upstream, content.uri) } };
  return message;
}

async function upstreamRequest<T>(
  upstream: UpstreamOffering,
  request: (client: NonNullable<ReturnType<UpstreamOffering['client']>>, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const client = upstream.client();
  if (!client) throw upstreamDown(upstream.server);
  const signal = AbortSignal.timeout(upstream.requestTimeoutMs);
  try {
    return await request(client, signal);
  } catch (err) {
    throw classifyMcpFailure(err, upstream.server, signal);
  }
}

export function createOffers(upstreams: readonly UpstreamOffering[], deps: OfferDeps): UpstreamOffers {
  return {
    /** What the caller may reach, as it sees it: resources/list, resources/templates/list, prompts/list. */
    resources: (caller: Caller) => visibleResources(upstreams, caller, deps.policy),
    templates: (caller: Caller) => visibleTemplates(upstreams, caller),
    prompts: (caller: Caller) => visiblePrompts(upstreams, caller, deps.policy),
    onChange: (listener) => upstreams.forEach((upstream) => upstream.onOffers(listener)),

    /** resources/read: the contents under gateway URIs, redacted, each text over the per-call budget cut with its record in `_meta`. */
    async readResource(caller: Caller, uri: string, log: FastifyBaseLogger): Promise<ReadResourceResult> {
      const found = upstreamOfUri(upstreams, uri);
      if (!found) throw notFound(`No resource ${uri}`);
      const { upstream } = found;
      if (!mayRead(caller, deps.policy, upstream, uri)) throw refusedOrMissing('resource', uri, caller.allows(resourcesName(upstream)));
      const result = await upstreamRequest(upstream, (client, signal) => client.readResource({ uri: found.uri }, { signal }));
      const scanner = deps.guardrails.forTool(resourcesName(upstream));
      const budget = deps.config.limits.call_budget_bytes;
      const spill = spillFor(deps, caller.tenant, log);
      const contents = await Promise.all(
        result.contents.map(async (item) => {
          const at = { ...item, uri: gatewayUri(upstream, item.uri) };
          if ('blob' in at && typeof at.blob === 'string') {
            if (literalBytes(at.blob) <= budget) return at;
            const { blob, ...rest } = at;
            const record = truncationRecord(await spill(Buffer.from(blob, 'base64')));
            const where = record.url === null ? 'the spill store failed, so it was not kept' : `GET ${record.url} for it`;
            return {
              ...rest,
              text: `[a blob of ${record.original_bytes} bytes, over the output budget: ${where}]`,
              _meta: { ...rest._meta, [TRUNCATED_META]: record },
            };
          }
          if (!('text' in at) || typeof at.text !== 'string') return at;
          const text = scanner ? scanner.redact(at.text).text : at.text;
          if (literalBytes(text) <= budget) return { ...at, text };
          const record = truncationRecord(await spill(text));
          return { ...at, text: cutText(text, budget, record, undefined), _meta: { ...at._meta, [TRUNCATED_META]: record } };
        }),
      );
      return { ...result, contents };
    },

    /** prompts/get: the prompt's messages, redacted. */
    async getPrompt(caller: Caller, name: string, args: Record<string, string>): Promise<GetPromptResult> {
      const found = upstreamOfPrompt(upstreams, name);
      if (!found) throw notFound(`No prompt ${name}`);
      if (!mayGet(caller, deps.policy, name, args)) throw refusedOrMissing('prompt', name, caller.allows(name));
      const result = await upstreamRequest(found.upstream, (client, signal) =>
        client.getPrompt({ name: found.prompt.name, arguments: args }, { signal }),
      );
      const named = { ...result, messages: result.messages.map((message) => withGatewayUris(found.upstream, message)) };
      const scanner = deps.guardrails.forTool(name);
      return scanner ? (scanner.redactValue(named, {}) as GetPromptResult) : named;
    },

    /** completion/complete for a prompt's argument (`ref/prompt`) or a template's variable (`ref/resource`), as the caller may reach them. */
    async complete(caller: Caller, params: Record<string, unknown>): Promise<Record<string, unknown>> {
      const ref = isRecord(params.ref) ? params.ref : {};
      if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
        const found = upstreamOfPrompt(upstreams, ref.name);
        if (!found || !caller.allows(ref.name)) throw notFound(`No prompt ${ref.name}`);
        return upstreamRequest(found.upstream, (client, signal) =>
          client.complete({ ...params, ref: { type: 'ref/prompt', name: found.prompt.name } } as Parameters<typeof client.complete>[0], {
            signal,
          }),
        );
      }
      if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
        const found = upstreamOfUri(upstreams, ref.uri);
        if (!found || !caller.allows(resourcesName(found.upstream))) throw notFound(`No resource template ${ref.uri}`);
        return upstreamRequest(found.upstream, (client, signal) =>
          client.complete({ ...params, ref: { type: 'ref/resource', uri: found.uri } } as Parameters<typeof client.complete>[0], {
            signal,
          }),
        );
      }
      throw new GatewayError('BAD_REQUEST', {
        message: 'params.ref must be {"type":"ref/prompt","name"} or {"type":"ref/resource","uri"}.',
      });
    },
  };
}
