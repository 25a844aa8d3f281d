export { createSecretScanner, marker, MARKER, type RedactionCounts, type SecretScanner } from './scanner.js';
export { redactStream } from './stream.js';
