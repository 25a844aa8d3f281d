import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GatewayError } from '../../protocol/errors.js';

/** Errors that say a path is not there (removed since it was listed, a link that dangles or loops): nothing below it to mount. */
export const gone = (error: unknown) => ['ENOENT', 'ENOTDIR', 'ELOOP'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * Fail closed: a path the walk cannot read (a folder a command made
 * unlistable with `chmod 300`, a link on the way it may not follow) could
 * hold anything a rule names, so the command is refused rather than run with
 * the rules below it unmounted.
 */
export const unchecked = (rel: string, error: unknown) =>
  new GatewayError('EXECUTION_FAILED', {
    message: `The sandbox could not read ${rel} in the workspace (${(error as NodeJS.ErrnoException).code ?? String(error)}) to check the policy's rules on the paths below it, so the command did not run.`,
    suggestion: `Give the folder back its owner's read and search permissions (chmod u+rx ${rel}), or ask an operator.`,
  });

/** Refused too: a folder its owner, the command's user, made read-only is one a command can make writable again, past every placeholder. */
export const locked = (rel: string) =>
  new GatewayError('EXECUTION_FAILED', {
    message: `The command's user owns ${rel} in the workspace but may not write in it: a command could give itself the write back and make a protected file there that the sandbox keeps from being made, so the command did not run.`,
    suggestion: `Give the folder back its owner's write and search permissions (chmod u+wx ${rel}), or ask an operator.`,
  });

/** The entries of a workspace folder; undefined when it is gone, and a refusal when it cannot be read. */
export async function listFolder(workspace: string, rel: string) {
  try {
    return await readdir(rel === '' ? workspace : join(workspace, rel), { withFileTypes: true });
  } catch (error) {
    if (gone(error)) return undefined;
    throw unchecked(rel || '.', error);
  }
}
