import { anthropic } from './anthropic.js';
import type { CallShapeFields, Dialect, ToolNotes, ToolResultInput, ToolSchemaSource } from './dialect.js';
import { gemini } from './gemini.js';
import { mcp } from './mcp.js';
import { openai } from './openai.js';
import { responses } from './responses.js';

/** Every provider dialect, in the order GET /tools names its formats. */
const DIALECTS = { openai, responses, anthropic, gemini, mcp } satisfies Record<string, Dialect>;
type Dialects = typeof DIALECTS;

/** The dialects GET /tools renders tool schemas in; tool_search answers in the same ones. */
export type ToolFormat = keyof Dialects;
export const TOOL_FORMATS = Object.keys(DIALECTS) as ToolFormat[];

/** The dialects a POST /execute batch arrives in and is answered in: those with result messages. */
export type CallFormat = { [F in ToolFormat]: Dialects[F] extends { messages: unknown } ? F : never }[ToolFormat];
export const CALL_FORMATS = TOOL_FORMATS.filter((f): f is CallFormat => 'messages' in DIALECTS[f]);

/** The wire shape one call arrived in, as the dialects name them. */
export type CallShape = { [F in CallFormat]: keyof Dialects[F]['calls'] }[CallFormat];

/** Each call shape's fields, and the dialect a batch of such calls is answered in when the envelope names none. */
export const CALL_SHAPES = Object.fromEntries(
  CALL_FORMATS.flatMap((format) =>
    Object.entries(DIALECTS[format].calls as Record<string, CallShapeFields>).map(([shape, fields]) => [shape, { ...fields, format }]),
  ),
) as Record<CallShape, CallShapeFields & { format: CallFormat }>;

/** One rendered `tools` element per tool (gemini's single wrapper is added by {@link wrapTools}); `notes` hears what a caller should know. */
export function renderTools(
  format: ToolFormat,
  tools: readonly ToolSchemaSource[],
  strict: boolean,
  notes?: ToolNotes,
): Record<string, unknown>[] {
  return DIALECTS[format].tools(tools, strict, notes);
}

/** The most tools the format's API takes in one request, as documented; undefined when it documents none. */
export function maxToolsOf(format: ToolFormat): number | undefined {
  return (DIALECTS[format] as Dialect).maxTools;
}

export function wrapTools(format: ToolFormat, tools: Record<string, unknown>[]): unknown[] {
  const dialect: Dialect = DIALECTS[format];
  return dialect.wrap ? dialect.wrap(tools) : tools;
}

type DeferFormat = { [F in ToolFormat]: Dialects[F] extends { searchTool: object } ? F : never }[ToolFormat];

/** Whether the format's API loads deferred tools through a tool search of its own. */
export function canDefer(format: string): format is DeferFormat {
  return Object.hasOwn(DIALECTS, format) && (DIALECTS[format as ToolFormat] as Dialect).searchTool !== undefined;
}

/** The tools with `defer_loading: true` on the `deferred` names, after the provider's search tool (which a request must carry). */
export function withDeferredLoading(
  format: DeferFormat,
  tools: Record<string, unknown>[],
  deferred: (name: string) => boolean,
): Record<string, unknown>[] {
  return [{ ...DIALECTS[format].searchTool }, ...tools.map((t) => (deferred(t.name as string) ? { ...t, defer_loading: true } : t))];
}

export type ProviderMessage = ReturnType<Dialects[CallFormat]['messages']>[number];

/** The response's `messages` in request order; a batch without calls renders none in any format. */
export function renderMessages(format: CallFormat, results: readonly ToolResultInput[]): ProviderMessage[] {
  return DIALECTS[format].messages(results);
}
