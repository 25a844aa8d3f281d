export { toAnthropic } from './anthropic.js';
export { toGemini } from './gemini.js';
export { toMcp } from './mcp.js';
export { toOpenAI } from './openai.js';
export type { ToolSchemaSource } from './source.js';
export { renderTools, wrapTools } from './render.js';
export { canDefer, deferMatcher, withDeferredLoading } from './defer.js';
