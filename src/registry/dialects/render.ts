import type { ToolFormat } from '../../protocol/catalog.js';
import type { Tool } from '../../tools/tool.js';
import { toAnthropic } from './anthropic.js';
import { toGemini } from './gemini.js';
import { toMcp } from './mcp.js';
import { toOpenAI } from './openai.js';
import { toResponses } from './responses.js';

/** One rendered `tools` element per tool (gemini's single wrapper is added by {@link wrapTools}). */
export function renderTools(format: ToolFormat, tools: readonly Tool[], strict: boolean): Record<string, unknown>[] {
  switch (format) {
    case 'openai':
      return toOpenAI(tools, { strict }) as unknown as Record<string, unknown>[];
    case 'responses':
      return toResponses(tools, { strict }) as unknown as Record<string, unknown>[];
    case 'anthropic':
      return toAnthropic(tools) as unknown as Record<string, unknown>[];
    case 'mcp':
      return toMcp(tools) as unknown as Record<string, unknown>[];
    case 'gemini':
      return (toGemini(tools)[0]?.functionDeclarations ?? []) as unknown as Record<string, unknown>[];
  }
}

/** The `tools` value of a format: gemini takes one object holding every declaration. */
export function wrapTools(format: ToolFormat, tools: Record<string, unknown>[]): unknown[] {
  return format === 'gemini' ? [{ functionDeclarations: tools }] : tools;
}
