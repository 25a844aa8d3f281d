import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../protocol/errors.js';

/** The header an agent backend names its user in; only a key with the `on_behalf` scope may send it (docs/auth.md). */
const USER_HEADER = 'x-toolgate-user';

export const USER_MAX = 256;

/** The header in the schema of a route that runs calls, for the OpenAPI document; actOnBehalf checks it before validation. */
export const UserHeader = {
  [USER_HEADER]: Type.Optional(
    Type.String({
      description: `The person the calls are for (1-${USER_MAX} printable ASCII characters); only from a key with the on_behalf scope.`,
    }),
  ),
};

// Printable ASCII only: Node reads header bytes as Latin-1, so any other character would arrive as some other name.
const USER = new RegExp(`^[\\x20-\\x7e]{1,${USER_MAX}}$`);

/** How many times the request sent the header: Node joins repeated values with ", ", which would name someone else. */
function sent(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === USER_HEADER) count++;
  return count;
}

/**
 * The request's caller, acting for the user its `x-toolgate-user` names: refused (403) from a key without `on_behalf`, and (400) when the
 * value is not one printable identifier. Every later log line of the request names the user.
 */
export function actOnBehalf(request: FastifyRequest): void {
  const value = request.headers[USER_HEADER];
  if (value === undefined) return;
  const caller = request.caller;
  if (!caller.scopes.has('on_behalf')) {
    throw new GatewayError('FORBIDDEN', {
      message:
        caller.user === undefined
          ? `The API key lacks the "on_behalf" scope, which ${USER_HEADER} needs; send the request without it, or use a key with that scope.`
          : `An access token names its user itself; ${USER_HEADER} is for API keys with the "on_behalf" scope. Send the request without it.`,
    });
  }
  if (typeof value !== 'string' || sent(request) !== 1) {
    throw new GatewayError('BAD_REQUEST', { message: `${USER_HEADER} must be sent once, naming one user.` });
  }
  if (!USER.test(value)) {
    throw new GatewayError('BAD_REQUEST', {
      message: `${USER_HEADER} must be 1 to ${USER_MAX} printable ASCII characters (letters, digits, punctuation, spaces); no control characters.`,
    });
  }
  request.caller = { ...caller, user: value };
  request.log.setBindings({ user: value });
}
