import { describe, expect, it } from 'vitest';
import { errors } from 'undici';
import { GatewayError } from '../../../../src/protocol/errors.js';
import { classifyHttpFailure, statusFailure } from '../../../../src/tools/http/failure.js';
import { ForbiddenAddressError } from '../../../../src/tools/http/ssrf.js';

const live = new AbortController().signal;
const sysError = (code: string) => Object.assign(new Error(code), { code });

/** The pipeline's breaker rule, as documented on classifyHttpFailure. */
function countsForBreaker(err: GatewayError): boolean {
  if (err.code === 'TIMEOUT' || err.code === 'EXECUTION_FAILED') return true;
  if (err.code !== 'UPSTREAM_ERROR') return false;
  const status = (err.details as { status?: number }).status;
  return status === undefined || status >= 500;
}

describe('classifyHttpFailure', () => {
  it.each([
    ['connection refused', sysError('ECONNREFUSED'), 'UPSTREAM_ERROR', { reason: 'connect' }, true],
    ['DNS failure', sysError('ENOTFOUND'), 'UPSTREAM_ERROR', { reason: 'connect' }, true],
    ['connect timeout', new errors.ConnectTimeoutError(), 'UPSTREAM_ERROR', { reason: 'connect' }, true],
    ['TLS certificate', sysError('CERT_HAS_EXPIRED'), 'UPSTREAM_ERROR', { reason: 'connect' }, true],
    ['reset', sysError('ECONNRESET'), 'UPSTREAM_ERROR', { reason: 'reset' }, true],
    ['socket closed', new errors.SocketError('other side closed'), 'UPSTREAM_ERROR', { reason: 'reset' }, true],
    ['bad HTTP', sysError('HPE_INVALID_CONSTANT'), 'UPSTREAM_ERROR', { reason: 'protocol' }, true],
    ['headers timeout', new errors.HeadersTimeoutError(), 'TIMEOUT', undefined, true],
    ['body timeout', new errors.BodyTimeoutError(), 'TIMEOUT', undefined, true],
    ['SSRF refusal', new ForbiddenAddressError('localhost', '127.0.0.1'), 'PERMISSION_DENIED', { reason: 'private_network' }, false],
    ['anything else', new Error('boom'), 'EXECUTION_FAILED', undefined, true],
  ])('%s', (_name, error, code, details, counted) => {
    const mapped = classifyHttpFailure(error, live);
    expect(mapped.code).toBe(code);
    if (details) expect(mapped.details).toMatchObject(details);
    expect(countsForBreaker(mapped)).toBe(counted);
  });

  it('anything after the call was aborted is TIMEOUT', () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyHttpFailure(sysError('ECONNRESET'), controller.signal).code).toBe('TIMEOUT');
  });

  it('passes a GatewayError through', () => {
    const own = new GatewayError('INVALID_ARGS');
    expect(classifyHttpFailure(own, live)).toBe(own);
  });

  it('finds the cause of a wrapped error', () => {
    expect(classifyHttpFailure(new Error('wrapped', { cause: sysError('ECONNREFUSED') }), live).details).toEqual({ reason: 'connect' });
  });
});

describe('statusFailure', () => {
  it.each([
    [404, 'UPSTREAM_ERROR', false, false],
    [400, 'UPSTREAM_ERROR', false, false],
    [302, 'UPSTREAM_ERROR', false, false],
    [429, 'RATE_LIMITED', true, false],
    [500, 'UPSTREAM_ERROR', true, true],
    [503, 'UPSTREAM_ERROR', true, true],
  ])('%i → %s, retryable %s, counted %s', (status, code, retryable, counted) => {
    const err = statusFailure(status, 'body', 2000);
    expect(err).toMatchObject({ code, retryable, details: { status, body_excerpt: 'body' } });
    expect(countsForBreaker(err)).toBe(counted);
  });

  it('429 carries Retry-After as retry_after_ms', () => {
    expect(statusFailure(429, '', 1500).toCallError()).toMatchObject({ code: 'RATE_LIMITED', retry_after_ms: 1500 });
  });
});
