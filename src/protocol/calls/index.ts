export { parseEnvelope, SESSION_ID_MAX, type ParsedEnvelope } from './envelope.js';
export type { NormalizedCall } from './types.js';
export type { CallFormat } from '../providers/index.js';
export { isModelName, MODEL_NAME_MAX } from './model.js';
