import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { GatewayError } from '../protocol/errors.js';

const OUTSIDE_SUGGESTION = 'Use a path relative to the workspace root that stays inside it, e.g. "src/index.ts".';

/** A path the workspace refuses: outside the root, or through a link or a directory it may not follow. */
export function denied(p: string, why: string): GatewayError {
  return new GatewayError('PERMISSION_DENIED', {
    message: `Path ${JSON.stringify(p)} ${why}.`,
    suggestion: OUTSIDE_SUGGESTION,
  });
}

/** A path no file of the workspace may have: empty, with a control character, or with a backslash. */
export function refuseMalformed(p: string): void {
  if (p.length === 0) {
    throw new GatewayError('INVALID_ARGS', {
      message: 'The path is empty.',
      suggestion: 'Give a path relative to the workspace root, or "." for the root.',
    });
  }
  // A newline or carriage return in a file name forges lines in logs and in listings a model reads back.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) {
    throw new GatewayError('INVALID_ARGS', {
      message: `Path ${JSON.stringify(p)} contains a control character (U+0000-U+001F or U+007F).`,
      suggestion: 'Give the path without line breaks, tabs or other control characters.',
    });
  }
  if (p.includes('\\')) {
    throw new GatewayError('INVALID_ARGS', {
      message: `Path ${JSON.stringify(p)} contains a backslash.`,
      suggestion: 'Separate path segments with "/", e.g. "src/index.ts".',
    });
  }
}

/** The `code` of a Node system error, if `err` is one. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * The error a failed resolution or open of `p` answers with: the errno's meaning for the caller, or `err` itself. A path that resolved a
 * moment ago and now leads nowhere was moved or removed meanwhile (by the caller's own commands, say): NOT_FOUND, never a tool failure the
 * breaker counts.
 */
export function mapResolveError(p: string, err: unknown): unknown {
  switch (errnoCode(err)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new GatewayError('NOT_FOUND', {
        message: `Path ${JSON.stringify(p)} was moved or removed while in use.`,
        suggestion: 'Check the path with LS or Glob, then send the call again.',
      });
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

/** The stats of `real`, a path just resolved for `shown`; a race since (moved, removed, become a link) answers as mapResolveError. */
export function statNow(shown: string, real: string): Promise<Stats> {
  return stat(real).catch((err: unknown) => {
    throw mapResolveError(shown, err);
  });
}
