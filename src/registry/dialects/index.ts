export { toAnthropic, type AnthropicTool } from './anthropic.js';
export { toGemini, type GeminiFunctionDeclaration, type GeminiTool } from './gemini.js';
export { toMcp, type McpTool } from './mcp.js';
export { toOpenAI, type OpenAITool } from './openai.js';
export { toResponses, type ResponsesTool } from './responses.js';
export type { ToolSchemaSource } from './source.js';
export { renderTools, wrapTools } from './render.js';
export { canDefer, deferMatcher, withDeferredLoading, PROVIDER_SEARCH_TOOL, type DeferFormat } from './defer.js';
