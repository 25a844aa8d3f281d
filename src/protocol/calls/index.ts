export { parseEnvelope, type ParsedEnvelope, type ParseEnvelopeOptions } from './envelope.js';
export type { CallFormat, CallShape, NormalizedCall } from './types.js';
