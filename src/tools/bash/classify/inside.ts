import { ask, type Verdict } from './verdict.js';

/** Where a command runs: `sandbox` (bubblewrap: the read-only table is ALLOW) or `none` (only the inert core is). */
export type Tier = 'sandbox' | 'none';

/** What the none tier checks on disk when the command is classified (see checks.ts): the classifier itself reads no file. */
export interface CoreNeeds {
  /** Operands read as paths, as written (relative, without `..`): none may lead out of the workspace through a link. */
  paths: string[];
  /** A `cd` target (relative, without `..`). */
  cd?: string;
  /** git runs: the workspace's own repository must be one whose configuration names no program. */
  git?: true;
  /** The program reads below its operands (grep -r, ls -R, find) or the repository's history: files no operand names. */
  walks?: true;
  /** The program (named here) reads the files inside an operand that is a folder (`diff dir1 dir2`): no operand may be one. */
  files?: string;
}

export interface CoreVerdict {
  verdict: Verdict;
  needs: CoreNeeds;
}

/** Why a path operand leaves the workspace by its spelling, or undefined when it stays inside (links are checked on disk). */
export function outsideBySpelling(path: string): string | undefined {
  if (path.startsWith('/')) return `${path} is an absolute path, outside the workspace`;
  if (path.split('/').includes('..')) return `${path} climbs out with ..`;
  return undefined;
}

/** Checks path operands by their spelling and notes them for the on-disk check; `-` and the command's own descriptors pass. */
export function judgePaths(name: string, operands: readonly string[], needs: CoreNeeds, verdict: Verdict): CoreVerdict {
  for (const operand of operands) {
    // stdin, or a descriptor of the command's own (a process substitution's /dev/fd/63).
    if (operand === '-' || /^\/dev\/fd\/[0-9]+$/.test(operand)) continue;
    const outside = outsideBySpelling(operand);
    if (outside) return { verdict: ask(`without a sandbox, ${name} reads only inside the workspace: ${outside}`), needs };
    needs.paths.push(operand);
  }
  return { verdict, needs };
}
