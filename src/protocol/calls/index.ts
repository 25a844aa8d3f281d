export { parseEnvelope, SESSION_ID_MAX, type ParsedEnvelope, type ParseEnvelopeOptions } from './envelope.js';
export type { CallFormat, CallShape, NormalizedCall } from './types.js';
export { isModelName, MODEL_NAME_MAX } from './model.js';
