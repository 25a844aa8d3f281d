import type { ContentBlock } from '../content.js';
import type { JsonObject } from '../json.js';

/** The fields of a tool its model-facing schema is built from. */
export interface ToolSchemaSource {
  name: string;
  description: string;
  parameters: JsonObject;
  /** The schema of the tool's structured result, where it has one (MCP's `outputSchema`). */
  outputSchema?: JsonObject;
  concurrencySafe: boolean;
}

/** Where one shape of call keeps its name, id and arguments. */
export interface CallShapeFields {
  /** The object inside the item that holds name and arguments; the item itself when unset. */
  wrapper?: string;
  /** The id sits on the item, beside the wrapper, not inside it. */
  idBesideWrapper?: true;
  id: string;
  args: string;
}

/** One finished call, as the `messages` of the response need it: one per call, in request order. */
export interface ToolResultInput {
  tool_call_id: string;
  name: string;
  /** The serialized result payload (status, text, data, error, truncated). */
  content: string;
  is_error: boolean;
  /** The same payload as an object: Gemini's `functionResponse.response` must be a JSON object, not a string. */
  payload: Record<string, unknown>;
  /** The result's blocks: its images travel natively beside the payload, which names them. */
  blocks?: readonly ContentBlock[];
  /** The gateway made the id up because the model sent none. */
  id_generated?: boolean;
}

/** Told, per tool, what the rendering changed that the caller should know of (a tool sent without strict mode, and why). */
export type ToolNotes = (name: string, note: string) => void;

/** What a provider speaks: tool schemas, the calls its model writes, the result messages. One file each, named in DIALECTS. */
export interface Dialect {
  /** One `tools` element per tool; `strict` asks for strict-mode schemas where the provider has them. */
  tools(tools: readonly ToolSchemaSource[], strict: boolean, notes?: ToolNotes): Record<string, unknown>[];
  /** The most tools the provider's API takes in one request, as its documentation says; absent: none documented. */
  maxTools?: number;
  /** The `tools` value holding the elements; the list itself when absent. */
  wrap?(tools: Record<string, unknown>[]): unknown[];
  /** The provider's own tool search, which loads a deferred tool; absent: no deferred loading. */
  searchTool?: Record<string, unknown>;
  /** The shapes of call its model writes, by name. */
  calls?: Record<string, CallShapeFields>;
  /** The response's `messages`, in request order. */
  messages?(results: readonly ToolResultInput[]): unknown[];
}
