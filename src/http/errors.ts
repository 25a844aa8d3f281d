import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { ERROR_CODES, GatewayError, isGatewayError, type ErrorCode } from '../protocol/errors.js';
import { StateUnavailableError } from '../state/state-store.js';
import { newRequestId } from './plugins/request-id.js';
import { counted } from '../shared/count.js';

/** Fastify's own errors that are the client's fault, mapped to our codes (JSON bodies: see json-body.ts). */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_VALIDATION: 'BAD_REQUEST',
};

/** The ErrorEnvelope: `{"error":{code,message,details?}}`. */
function envelopeOf(error: GatewayError): { error: { code: ErrorCode; message: string; details?: unknown } } {
  const body: { code: ErrorCode; message: string; details?: unknown } = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  return { error: body };
}

/** Answer with the error's status and Retry-After, the body in the route's shape (the envelope unless told). */
export function sendError(reply: FastifyReply, error: GatewayError, bodyOf: (error: GatewayError) => unknown = envelopeOf): FastifyReply {
  if (error.retryAfterMs !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
  return reply.code(error.status).send(bodyOf(error));
}

/** An ajv error as a person would say it: the allowed values, the unknown field by name. */
function validationMessage(v: FastifySchemaValidationError): string {
  const params = v.params as { allowedValues?: unknown[]; additionalProperty?: string };
  if (v.keyword === 'enum' && params.allowedValues) return `must be ${params.allowedValues.map(String).join(' or ')}`;
  if (v.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    return `has an unknown field ${JSON.stringify(params.additionalProperty.slice(0, 64))}`;
  }
  return v.message ?? 'is invalid';
}

function fromFastify(err: FastifyError, request: FastifyRequest): GatewayError | undefined {
  if (err.validation) {
    const errors = err.validation.map((v) => ({ path: v.instancePath || '/', message: validationMessage(v) }));
    const where = err.validationContext ?? 'request';
    return new GatewayError('BAD_REQUEST', {
      message: `The ${where} is invalid: ${errors.map((e) => `${e.path === '/' ? 'it' : e.path.slice(1)} ${e.message}`).join('; ')}.`,
      details: { errors },
    });
  }
  const code = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (code === 'PAYLOAD_TOO_LARGE' || err.statusCode === 413) return tooLarge(request);
  if (code) return new GatewayError(code, { message: code === 'BAD_REQUEST' ? err.message : ERROR_CODES[code].message });
  if (err.statusCode === 415) return new GatewayError('UNSUPPORTED_MEDIA_TYPE');
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new GatewayError('BAD_REQUEST', { message: err.message });
  }
  return undefined;
}

function tooLarge(request: FastifyRequest): GatewayError {
  const limit = request.routeOptions.bodyLimit;
  return new GatewayError('PAYLOAD_TOO_LARGE', {
    message: `The request body is over the limit of ${counted(limit, 'byte')} (limits.body_bytes); send fewer or smaller calls per request, or raise the setting.`,
    details: { limit, setting: 'limits.body_bytes' },
  });
}

/**
 * Any error a route or hook threw, as one of ours. Anything we did not classify is an internal error: logged in full with the request id,
 * answered without internals.
 */
export function gatewayErrorOf(err: FastifyError, request: FastifyRequest): GatewayError {
  if (isGatewayError(err)) return err;
  // Routes that need the state store (admin, Idempotency-Key waits) answer a Redis outage as what it is.
  if (err instanceof StateUnavailableError) {
    return new GatewayError('STATE_UNAVAILABLE', { message: 'The state store is unreachable; retry shortly.', retryAfterMs: 1_000 });
  }
  const mapped = fromFastify(err, request);
  if (mapped) return mapped;
  request.log.error({ err }, 'unhandled error');
  return new GatewayError('INTERNAL');
}

/** One error shape for every route but /mcp, which answers in JSON-RPC (src/http/mcp.ts). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => sendError(reply, gatewayErrorOf(err, request)));
  app.setNotFoundHandler((request, reply) => sendError(reply, noRoute(request)));
}

export function noRoute(request: FastifyRequest): GatewayError {
  return new GatewayError('NOT_FOUND', { message: `No route ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}.` });
}

/** What Node's HTTP server refuses before fastify sees a request, by its error code; anything else it cannot parse is BAD_REQUEST. */
const PARSER_CODES: Record<string, 'REQUEST_TIMEOUT' | 'HEADERS_TOO_LARGE'> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
};
const PARSER_MESSAGES: Record<'BAD_REQUEST' | 'REQUEST_TIMEOUT' | 'HEADERS_TOO_LARGE', string> = {
  BAD_REQUEST: 'The request is not valid HTTP.',
  REQUEST_TIMEOUT: `The request's headers and body did not arrive within the request timeout; send it again.`,
  HEADERS_TOO_LARGE: `The request line and headers are over Node's limit of ${maxHeaderSize} bytes.`,
};

/**
 * fastify options: the error envelope and `x-request-id` also for what fastify answers before any route or hook runs: a URL the router
 * cannot decode or a path parameter over its length limit (`frameworkErrors`), and a request Node's HTTP parser refuses
 * (`clientErrorHandler`, which has no request object, so the id is new).
 */
export const frameworkErrorOptions = {
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    if (error.code === 'FST_ERR_ASYNC_CONSTRAINT') return sendError(reply, new GatewayError('INTERNAL'));
    const message =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'A path parameter of the URL is too long.'
        : 'The URL is not valid (bad percent-encoding).';
    return sendError(reply, new GatewayError('BAD_REQUEST', { message }));
  },
  clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => {
    // A reset connection has no one left to answer (Node's own rule).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const code = PARSER_CODES[err.code ?? ''] ?? 'BAD_REQUEST';
    const { status } = ERROR_CODES[code];
    const body = JSON.stringify({ error: { code, message: PARSER_MESSAGES[code] } });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${newRequestId()}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(err);
  },
};
