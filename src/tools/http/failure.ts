import { GatewayError, isGatewayError } from '../../protocol/errors.js';
import { findForbidden } from './ssrf.js';

/** How an exchange broke with no status to show: `connect` (refused, DNS, TLS, timeout), `reset` mid-exchange, `protocol` (not HTTP). */
type TransportFailure = 'connect' | 'reset' | 'protocol';

const CONNECT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
]);
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The transport failure an error stands for, if it is one. */
export function transportFailure(err: unknown): TransportFailure | undefined {
  const code = errorCode(err);
  if (code === undefined || findForbidden(err)) return undefined;
  if (CONNECT_CODES.has(code) || TLS_CODE.test(code)) return 'connect';
  if (RESET_CODES.has(code)) return 'reset';
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code.startsWith('HPE_')) return 'protocol';
  return undefined;
}

/**
 * The call's error for what an HTTP tool threw. The breaker counts TIMEOUT, EXECUTION_FAILED and UPSTREAM_ERROR with `details.status` ≥ 500
 * or none (a transport failure, `details.reason`); not a 3xx/4xx UPSTREAM_ERROR, RATE_LIMITED, INVALID_ARGS or PERMISSION_DENIED (SSRF).
 */
export function classifyHttpFailure(err: unknown, signal: AbortSignal): GatewayError {
  if (isGatewayError(err)) return err;
  if (signal.aborted || TIMEOUT_CODES.has(errorCode(err) ?? '')) {
    return new GatewayError('TIMEOUT', {
      message: 'The upstream did not answer in full before the call deadline.',
      suggestion: 'Retry, or raise the tool timeout_ms if the upstream is slow.',
    });
  }
  const forbidden = findForbidden(err);
  if (forbidden) {
    return new GatewayError('PERMISSION_DENIED', {
      message: `Refused to connect: ${forbidden.message}.`,
      details: { reason: 'private_network', host: forbidden.host, address: forbidden.address },
      suggestion: 'HTTP tools reach only the public internet unless the tool sets allow_private_network: true.',
    });
  }
  const reason = transportFailure(err);
  if (reason) {
    const what = {
      connect: 'Could not connect to',
      reset: 'The connection dropped while talking to',
      protocol: 'Got a malformed HTTP answer from',
    };
    return new GatewayError('UPSTREAM_ERROR', {
      message: `${what[reason]} the upstream (${errorCode(err)}).`,
      retryable: reason !== 'protocol',
      details: { reason },
      cause: err,
    });
  }
  return new GatewayError('EXECUTION_FAILED', { message: 'The HTTP tool failed unexpectedly.', cause: err });
}

/** The error for a final non-2xx answer: `details.status` always (the breaker reads it), `body_excerpt` cut and scrubbed. */
export function statusFailure(status: number, bodyExcerpt: string, retryAfterMs?: number): GatewayError {
  const details = { status, body_excerpt: bodyExcerpt };
  if (status === 429) {
    return new GatewayError('RATE_LIMITED', { message: 'The upstream is rate limiting this tool.', details, retryAfterMs });
  }
  if (status >= 500) {
    return new GatewayError('UPSTREAM_ERROR', { message: `The upstream failed with ${status}.`, retryable: true, details, retryAfterMs });
  }
  if (status < 400) {
    return new GatewayError('UPSTREAM_ERROR', {
      message: `The upstream answered ${status} (a redirect), which was not followed.`,
      retryable: false,
      details,
      suggestion: 'Allow redirects with the tool setting http.follow_redirects, or point its url at the final location.',
    });
  }
  return new GatewayError('UPSTREAM_ERROR', {
    message: `The upstream rejected the request with ${status}.`,
    retryable: false,
    details,
    suggestion: 'Check the arguments against the tool description before retrying.',
  });
}
