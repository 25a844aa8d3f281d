import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Policy } from '../policy/index.js';
import type { UpstreamOffering } from '../tools/mcp/offers.js';

/**
 * What a caller sees of the upstream servers' resources, templates and prompts (docs/mcp.md, "Resources and prompts"). A prompt is named
 * `prefix + name`, like the server's tools. A resource URI is `<server>+<upstream URI>` (`ev+demo://resource/static/document/a.md`), a
 * template's `uriTemplate` the same, and a resource's `name` has the prefix too. Keys and policy see a server's resources under one name,
 * `prefix + "resources"` (its argument `uri`, the gateway's URI), and a prompt under its own name (its arguments): a caller sees what its
 * key allows and no policy rule withholds (deny or ask: resources and prompts have no approvals).
 */

interface OfferCaller {
  allows(name: string): boolean;
}

/** The name keys and policy rules see a server's resources under. */
export function resourcesName(upstream: Pick<UpstreamOffering, 'prefix'>): string {
  return `${upstream.prefix}resources`;
}

export function gatewayUri(upstream: Pick<UpstreamOffering, 'server'>, uri: string): string {
  return `${upstream.server}+${uri}`;
}

/** The server a gateway URI (or template) names and its upstream URI; undefined when it names none. */
export function upstreamOfUri<U extends UpstreamOffering>(upstreams: readonly U[], uri: string): { upstream: U; uri: string } | undefined {
  const plus = uri.indexOf('+');
  if (plus <= 0) return undefined;
  const upstream = upstreams.find((u) => u.server === uri.slice(0, plus));
  return upstream && { upstream, uri: uri.slice(plus + 1) };
}

/** The server of a gateway prompt name and the prompt's upstream name; undefined when no server lists it. */
export function upstreamOfPrompt<U extends UpstreamOffering>(
  upstreams: readonly U[],
  name: string,
): { upstream: U; prompt: Prompt } | undefined {
  for (const upstream of upstreams) {
    if (!name.startsWith(upstream.prefix)) continue;
    const prompt = upstream.offered().prompts.find((p) => p.name === name.slice(upstream.prefix.length));
    if (prompt) return { upstream, prompt };
  }
  return undefined;
}

/** Whether the caller's key and the policy let it read `uri` (a gateway URI) of `upstream`. */
export function mayRead(caller: OfferCaller, policy: Policy, upstream: UpstreamOffering, uri: string): boolean {
  const name = resourcesName(upstream);
  return caller.allows(name) && policy.decideCall({ tool: name, args: { uri }, requiresApproval: false }).decision === 'allow';
}

/** Whether the caller's key and the policy let it get `name` (a gateway prompt name) with `args`. */
export function mayGet(caller: OfferCaller, policy: Policy, name: string, args: Record<string, unknown>): boolean {
  return caller.allows(name) && policy.decideCall({ tool: name, args, requiresApproval: false }).decision === 'allow';
}

/** The resources the caller may read, as it sees them. */
export function visibleResources(upstreams: readonly UpstreamOffering[], caller: OfferCaller, policy: Policy): Resource[] {
  return upstreams.flatMap((upstream) =>
    upstream
      .offered()
      .resources.map((r) => ({ ...r, uri: gatewayUri(upstream, r.uri), name: `${upstream.prefix}${r.name}` }))
      .filter((r) => mayRead(caller, policy, upstream, r.uri)),
  );
}

/** The resource templates of the servers whose resources the caller's key allows. */
export function visibleTemplates(upstreams: readonly UpstreamOffering[], caller: OfferCaller): ResourceTemplate[] {
  return upstreams
    .filter((upstream) => caller.allows(resourcesName(upstream)))
    .flatMap((upstream) =>
      upstream
        .offered()
        .templates.map((t) => ({ ...t, uriTemplate: gatewayUri(upstream, t.uriTemplate), name: `${upstream.prefix}${t.name}` })),
    );
}

/** The prompts the caller may get (with no arguments a rule could deny), named as it sees them. */
export function visiblePrompts(upstreams: readonly UpstreamOffering[], caller: OfferCaller, policy: Policy): Prompt[] {
  return upstreams.flatMap((upstream) =>
    upstream
      .offered()
      .prompts.map((p) => ({ ...p, name: `${upstream.prefix}${p.name}` }))
      .filter((p) => mayGet(caller, policy, p.name, {})),
  );
}

/** The names policy rules may give resources and prompts, with the arguments a rule may test: checked at start-up as tools are. */
export function offerShapes(upstreams: readonly UpstreamOffering[]): Array<{ name: string; parameters: unknown }> {
  return upstreams.flatMap((upstream) => [
    { name: resourcesName(upstream), parameters: { type: 'object', properties: { uri: { type: 'string' } } } },
    ...upstream.offered().prompts.map((prompt) => ({
      name: `${upstream.prefix}${prompt.name}`,
      parameters: { type: 'object', properties: Object.fromEntries((prompt.arguments ?? []).map((arg) => [arg.name, { type: 'string' }])) },
    })),
  ]);
}
