import { GatewayError } from '../protocol/errors.js';

const OUTSIDE_SUGGESTION = 'Use a path relative to the workspace root that stays inside it, e.g. "src/index.ts".';

/** A path the workspace refuses: outside the root, or through a link or a directory it may not follow. */
export function denied(p: string, why: string): GatewayError {
  return new GatewayError('PERMISSION_DENIED', {
    message: `Path ${JSON.stringify(p)} ${why}.`,
    suggestion: OUTSIDE_SUGGESTION,
  });
}

/** The `code` of a Node system error, if `err` is one. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** The error a failed resolution or open of `p` answers with: the errno's meaning for the caller, or `err` itself. */
export function mapResolveError(p: string, err: unknown): unknown {
  switch (errnoCode(err)) {
    case 'ELOOP':
      return denied(p, 'has too many levels of symbolic links');
    case 'EACCES':
    case 'EPERM':
      return denied(p, 'cannot be accessed');
    case 'ENAMETOOLONG':
      return new GatewayError('INVALID_ARGS', { message: `Path ${JSON.stringify(p)} is too long.` });
    default:
      return err;
  }
}
