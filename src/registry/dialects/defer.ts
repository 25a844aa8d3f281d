import { toolNameMatcher } from '../../policy/index.js';

/**
 * The provider's own tool search, which loads a deferred tool when the model
 * asks for it; a request whose tools are deferred must carry it, and it may
 * not be deferred itself. Anthropic: the BM25 variant of its tool search tool
 * (a client that prefers regular expressions swaps in
 * `{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`).
 * OpenAI Responses: the hosted `tool_search`. Chat Completions, Gemini and
 * MCP have no deferred loading.
 */
const PROVIDER_SEARCH_TOOL = {
  anthropic: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  responses: { type: 'tool_search' },
} as const;

type DeferFormat = keyof typeof PROVIDER_SEARCH_TOOL;

export function canDefer(format: string): format is DeferFormat {
  return Object.hasOwn(PROVIDER_SEARCH_TOOL, format);
}

/**
 * `?defer=`: comma-separated tool names or globs to defer (`*`: all); a
 * pattern starting with `!` keeps the tools it matches loaded whatever the
 * others say (`*,!Read,!Grep`).
 */
export function deferMatcher(spec: string): (name: string) => boolean {
  const patterns = spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const defer = patterns.filter((p) => !p.startsWith('!')).map(toolNameMatcher);
  const keep = patterns.filter((p) => p.startsWith('!')).map((p) => toolNameMatcher(p.slice(1)));
  return (name) => defer.some((m) => m(name)) && !keep.some((m) => m(name));
}

/** The rendered tools with `defer_loading: true` on those `deferred` names, after the provider's search tool. */
export function withDeferredLoading(
  format: DeferFormat,
  tools: Record<string, unknown>[],
  deferred: (name: string) => boolean,
): Record<string, unknown>[] {
  return [{ ...PROVIDER_SEARCH_TOOL[format] }, ...tools.map((t) => (deferred(t.name as string) ? { ...t, defer_loading: true } : t))];
}
