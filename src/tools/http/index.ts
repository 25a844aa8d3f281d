export { createHttpDispatchers, type HttpDispatcherOptions, type HttpDispatchers } from './dispatcher.js';
export { createHttpTool } from './http-tool.js';
export { findForbidden, isForbiddenAddress } from './ssrf.js';
export { envTemplates, headerTemplates } from './secrets.js';
