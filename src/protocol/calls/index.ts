export { parseEnvelope, SESSION_ID_MAX, type ParsedEnvelope } from './envelope.js';
export type { CallFormat, NormalizedCall } from './types.js';
export { isModelName, MODEL_NAME_MAX } from './model.js';
