export { DIFF_MAX_BYTES, unifiedDiff } from './diff.js';
export { approvalEvents, webhookRetries, webhookUrlProblem, type ApprovalEvents } from './notify.js';
export { ARGUMENT_CHARS, approvalArguments, previewOf } from './preview.js';
