export { TOOL_FORMATS, type ToolFormat } from './providers/index.js';

/** Longest query GET /tools?q= and tool_search accept (400 past it): a query is a few words, not a document. */
export const MAX_QUERY_CHARS = 1000;

/** Tools per search: GET /tools?q= defaults to `listing`, tool_search to `tool` (each schema costs the model context), at most `max`. */
export const SEARCH_LIMIT = { listing: 10, tool: 5, max: 100 } as const;
