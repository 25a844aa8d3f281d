import { MAX_QUERY_CHARS, SEARCH_LIMIT, TOOL_FORMATS, type ToolFormat } from '../protocol/catalog.js';
import { GatewayError } from '../protocol/errors.js';
import { optionalNumber, optionalString, requireString } from './builtin/args.js';
import type { Tool } from './tool.js';

const TOOL_SEARCH_NAME = 'tool_search';

/**
 * The meta-tool a model calls to find tools in a catalog too large to send whole: what `GET /tools?q=` would return for the calling key,
 * schemas included, in the dialect of the request (or `format`). Served only when the config enables it (`builtins: {tool_search: {enabled:
 * true}}`).
 */
export const toolSearchTool: Tool = {
  name: TOOL_SEARCH_NAME,
  description:
    'Find tools by what they do: returns the best matching tools with their full schemas, best first, to call in the next steps. ' +
    'Describe the task in a few words, e.g. "create github issue" or "current weather".',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'Words describing the tool you need.' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: SEARCH_LIMIT.max,
        description: `How many tools to return (default ${SEARCH_LIMIT.tool}).`,
      },
      format: {
        type: 'string',
        enum: [...TOOL_FORMATS],
        description: 'Schema dialect of the returned tools; default: the one of this request.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  concurrencySafe: true,
  async run(args, ctx) {
    const query = requireString(args, 'query');
    const limit = optionalNumber(args, 'limit', 1, SEARCH_LIMIT.max, true) ?? SEARCH_LIMIT.tool;
    const format = (optionalString(args, 'format') as ToolFormat | undefined) ?? ctx.catalog?.format ?? 'openai';
    if (!ctx.catalog) throw new GatewayError('EXECUTION_FAILED', { message: 'tool_search runs only inside the gateway pipeline.' });
    if (!ctx.catalog.hasSearchWords(query)) {
      throw new GatewayError('INVALID_ARGS', {
        message: `query ${JSON.stringify(query.slice(0, 100))} has no search words: it is blank, punctuation or only words like "the".`,
        suggestion: 'Describe the tool you need in a few words, e.g. "create github issue" or "current weather".',
        details: { errors: [{ path: '/query', message: 'has no search words' }] },
      });
    }
    // The model has this tool already: it is never among the finds.
    const { tools, names } = await ctx.catalog.search(query, { limit, format, exclude: TOOL_SEARCH_NAME });
    const quoted = JSON.stringify(query);
    const text =
      names.length === 0
        ? `No tool matches ${quoted}.`
        : names.length === 1
          ? `1 tool matches ${quoted}: ${names[0]}.`
          : `${names.length} tools match ${quoted}, best first: ${names.join(', ')}.`;
    return { text, data: { format, tools } };
  },
};
