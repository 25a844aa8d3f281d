import type { ContentBlock } from '../content.js';
import type { JsonObject } from '../json.js';
import type { Dialect, ToolNotes, ToolResultInput, ToolSchemaSource } from './dialect.js';
import { dataUrl, imagesOf } from './native-content.js';
import { overStrictLimits } from './openai-limits.js';
import { toStrictParameters } from './openai-strict.js';

interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonObject; strict?: true };
}

/**
 * OpenAI `tools`; with `strict`, a schema without a strict-mode form (an open map, a tuple, an untyped schema) goes as is, unflagged, and
 * so does one whose strict form is over OpenAI's size limits (openai-limits.ts), which `notes` hears of.
 */
export function toOpenAI(tools: readonly ToolSchemaSource[], options: { strict: boolean; notes?: ToolNotes | undefined }): OpenAITool[] {
  return tools.map((tool) => {
    const parameters = structuredClone(tool.parameters);
    let strict = options.strict ? toStrictParameters(parameters) : undefined;
    const over = strict && overStrictLimits(strict);
    if (over) {
      options.notes?.(tool.name, `sent without strict mode: ${over}`);
      strict = undefined;
    }
    return {
      type: 'function',
      function: strict
        ? { name: tool.name, description: tool.description, parameters: strict, strict: true }
        : { name: tool.name, description: tool.description, parameters },
    };
  });
}

/** OpenAI Chat Completions: one message per call. */
interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

interface OpenAIImageMessage {
  role: 'user';
  content: Record<string, unknown>[];
}

/** A tool message holds text only: every call's images go in one `user` message after them, each after a text part naming its call. */
function chatImageMessage(
  calls: readonly { tool_call_id: string; name: string; content?: readonly ContentBlock[] | undefined }[],
): OpenAIImageMessage | undefined {
  const parts: Record<string, unknown>[] = [];
  for (const call of calls) {
    for (const image of imagesOf(call.content)) {
      parts.push({ type: 'text', text: `An ${image.mime_type} image from the ${call.name} call ${call.tool_call_id}:` });
      parts.push({ type: 'image_url', image_url: { url: dataUrl(image) } });
    }
  }
  return parts.length === 0 ? undefined : { role: 'user', content: parts };
}

// Chat Completions API reference, `tools`: "A max of 128 functions are supported."
export const OPENAI_MAX_TOOLS = 128;

export const openai = {
  tools: (tools, strict, notes) => toOpenAI(tools, { strict, notes }) as unknown as Record<string, unknown>[],
  maxTools: OPENAI_MAX_TOOLS,
  calls: {
    // `{"id","type":"function","function":{"name","arguments"}}`
    openai: { wrapper: 'function', idBesideWrapper: true, id: 'id', args: 'arguments' },
    // `{"id","name","arguments"}`
    flat: { id: 'id', args: 'arguments' },
  },
  messages(results: readonly ToolResultInput[]): (OpenAIToolMessage | OpenAIImageMessage)[] {
    const messages: (OpenAIToolMessage | OpenAIImageMessage)[] = results.map((r) => ({
      role: 'tool',
      tool_call_id: r.tool_call_id,
      content: r.content,
    }));
    const images = chatImageMessage(results.map((r) => ({ tool_call_id: r.tool_call_id, name: r.name, content: r.blocks })));
    if (images) messages.push(images);
    return messages;
  },
} satisfies Dialect;
