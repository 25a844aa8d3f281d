import { GatewayError } from '../errors.js';
import type { JsonObject } from '../json.js';

// How a malformed body is answered: BAD_REQUEST naming where in the body the problem is.

export function badRequest(message: string, details?: JsonObject): GatewayError {
  return new GatewayError('BAD_REQUEST', { message, details });
}

// Echoes of client strings in messages stay short.
export function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

export function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
