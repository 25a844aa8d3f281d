/** Every wire error code: its HTTP status as an envelope error, whether a retry may help, its default message (docs/api.md's table). */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, retryable: false, message: 'The request body is not a valid tool-call envelope.' },
  DUPLICATE_CALL_ID: { status: 400, retryable: false, message: 'Two calls in the batch share one id.' },
  TOO_MANY_CALLS: { status: 400, retryable: false, message: 'The batch has more calls than the configured maximum.' },
  UNAUTHORIZED: { status: 401, retryable: false, message: 'A valid API key is required.' },
  FORBIDDEN: { status: 403, retryable: false, message: 'The API key lacks the scope this route needs.' },
  NOT_FOUND: { status: 404, retryable: false, message: 'Not found.' },
  REQUEST_TIMEOUT: { status: 408, retryable: true, message: 'The request did not arrive in time.' },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, message: 'The request body is over the size limit.' },
  RANGE_NOT_SATISFIABLE: { status: 416, retryable: false, message: 'The requested byte range is outside the output.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, retryable: false, message: 'Send application/json.' },
  HEADERS_TOO_LARGE: { status: 431, retryable: false, message: 'The request line and headers are over the size limit.' },
  INCOMPLETE_TOOL_CALLS: { status: 422, retryable: false, message: 'The model stopped before finishing its tool calls; nothing was run.' },
  REQUEST_IN_PROGRESS: { status: 409, retryable: true, message: 'A request with this Idempotency-Key is still running.' },
  IDEMPOTENCY_MISMATCH: { status: 422, retryable: false, message: 'This id was already used with a different request.' },
  RATE_LIMITED: { status: 429, retryable: true, message: 'Rate limit reached.' },
  NOT_READY: { status: 503, retryable: true, message: 'The gateway is shutting down; retry on another replica.' },
  OVERLOADED: { status: 503, retryable: true, message: 'The gateway has too many requests in flight; retry shortly.' },
  ISSUER_UNAVAILABLE: {
    status: 503,
    retryable: true,
    message: "The token's authorization server cannot be reached and its keys are not cached yet.",
  },
  STATE_UNAVAILABLE: { status: 503, retryable: true, message: 'The state store is unreachable.' },
  AUDIT_UNAVAILABLE: { status: 503, retryable: true, message: 'The audit trail cannot be written; side-effecting calls do not run.' },
  INTERNAL: { status: 500, retryable: true, message: 'Internal error.' },
  INVALID_JSON: { status: 400, retryable: false, message: 'The arguments are not a JSON object.' },
  UNKNOWN_TOOL: { status: 404, retryable: false, message: 'No such tool.' },
  INVALID_ARGS: { status: 400, retryable: false, message: 'The arguments do not match the tool schema.' },
  ARG_TOO_LARGE: { status: 413, retryable: false, message: 'A string argument is over the size limit.' },
  PERMISSION_DENIED: { status: 403, retryable: false, message: 'The policy denies this call.' },
  APPROVAL_REQUIRED: { status: 403, retryable: true, message: 'This call needs human approval; retry it once approved.' },
  AUTHORIZATION_REQUIRED: {
    status: 403,
    retryable: false,
    message:
      'This tool acts as the calling person at a provider, and they have not authorized it; they open details.authorization_url, then the call is retried.',
  },
  APPROVAL_LIMIT: {
    status: 429,
    retryable: true,
    message: 'The tenant has as many pending approval requests as it may; retry once some are decided or expire.',
  },
  CIRCUIT_OPEN: { status: 503, retryable: true, message: 'The tool is failing and its circuit is open.' },
  TIMEOUT: { status: 504, retryable: true, message: 'The tool did not finish in time.' },
  CANCELLED: { status: 499, retryable: true, message: 'The client cancelled the call.' },
  CONFLICT: { status: 409, retryable: false, message: 'The file changed since it was read; Read it again, then retry.' },
  UPSTREAM_ERROR: { status: 502, retryable: true, message: 'The upstream service answered with an error.' },
  EXECUTION_FAILED: { status: 500, retryable: false, message: 'The tool failed.' },
  IMAGE_TOO_LARGE: {
    status: 413,
    retryable: false,
    message: 'An image of the output is over limits.image_bytes; it is kept in the spill store.',
  },
  COMMAND_FAILED: { status: 422, retryable: false, message: 'The command exited with a non-zero status.' },
} as const satisfies Record<string, { status: number; retryable: boolean; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The error object of a failed call in `results[].error`. */
export interface CallError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  retry_after_ms?: number;
  suggestion?: string;
  details?: unknown;
}

interface GatewayErrorOptions {
  message?: string;
  details?: unknown;
  retryAfterMs?: number;
  retryable?: boolean;
  suggestion?: string;
  cause?: unknown;
}

/** An error with a wire code, thrown by tools and the HTTP layer; anything else thrown is an internal error. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryAfterMs?: number;
  readonly retryable: boolean;
  readonly suggestion?: string;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    super(options.message ?? ERROR_CODES[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.suggestion = options.suggestion;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toCallError(): CallError {
    const error: CallError = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.retryAfterMs !== undefined) error.retry_after_ms = Math.max(0, Math.ceil(this.retryAfterMs));
    if (this.suggestion !== undefined) error.suggestion = this.suggestion;
    if (this.details !== undefined) error.details = this.details;
    return error;
  }
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}
