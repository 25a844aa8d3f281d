export { approvalEvents, webhookRetries, webhookUrlProblem, type ApprovalEvents } from './notify.js';
export { approvalArguments, previewOf } from './preview.js';
