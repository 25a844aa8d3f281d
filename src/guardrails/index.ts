export { createGuardrails, type Guardrails } from './guardrails.js';
export { guardSpill, redactOutput } from './output.js';
export { createSecretScanner, marker, MARKER, type RedactionCounts, type SecretScanner } from './scanner.js';
export { redactStream } from './stream.js';
