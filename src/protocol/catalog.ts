/** The dialects GET /tools renders tool schemas in; tool_search answers in the same ones. */
export const TOOL_FORMATS = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;

export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** Longest query GET /tools?q= and tool_search accept (400 past it): a query is a few words, not a document. */
export const MAX_QUERY_CHARS = 1000;

/**
 * Tools per search: GET /tools?q= defaults to `listing`, tool_search to `tool` (each found schema costs the model context), neither past
 * `max`.
 */
export const SEARCH_LIMIT = { listing: 10, tool: 5, max: 100 } as const;
