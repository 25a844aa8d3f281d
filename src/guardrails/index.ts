export { createGuardrails, type Guardrails } from './guardrails.js';
export { logLineScrubber } from './log-lines.js';
export { guardSpill, redactOutput } from './output.js';
export { createSecretScanner, marker, MARKER, type RedactionCounts, type SecretScanner } from './scanner.js';
export { redactStream } from './stream.js';
export {
  cutOutsideMarkers,
  overlapsRedaction,
  rawOffset,
  redactedHead,
  redactedLines,
  redactedView,
  redactThenCut,
  unmasks,
  viewCounts,
} from './view.js';
export { shippedRulesProblem } from './vendor/index.js';
