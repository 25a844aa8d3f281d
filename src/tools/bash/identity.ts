import { statSync } from 'node:fs';

/** Who commands run as: spawn's uid and gid, absent to stay the gateway's own user. */
export interface Identity {
  uid?: number;
  gid?: number;
}

/**
 * A gateway running as root runs commands as the owner of the workspace, so
 * the files they write belong to it and, above all, so the process limit
 * holds: the kernel never applies RLIMIT_NPROC to root, so a fork bomb run
 * as root is bounded by nothing. A root-owned workspace leaves commands root
 * (`warning` says so). A gateway that is not root cannot change user: its
 * commands run as itself, the usual deployment.
 */
export function commandIdentity(workspace: string): { identity: Identity; warning?: string } {
  if (process.getuid?.() !== 0) return { identity: {} };
  const { uid, gid } = statSync(workspace);
  if (uid !== 0) return { identity: { uid, gid } };
  return {
    identity: {},
    warning: `Bash runs commands as root: the workspace ${workspace} is owned by root, and the kernel does not apply the process limit to root. chown the workspace to an unprivileged user; commands then run as that user`,
  };
}
