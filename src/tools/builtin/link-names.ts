import { lstat, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { PathRules } from '../../policy/index.js';
import type { Workspace } from '../workspace-types.js';

/** The links to folders of the workspace that a rule may name a path through: each link's name and its target, workspace-relative. */
export type LinkNames = ReadonlyArray<{ name: string; target: string }>;

/** The links among folders anchored rules name that lead inside the workspace: a rule naming a path through one holds for its target. */
export async function linkNames(ws: Workspace, paths: PathRules): Promise<LinkNames> {
  const found = await Promise.all(
    paths.linkCandidates.map(async (name) => {
      const abs = join(ws.root, name);
      const link = await lstat(abs).then(
        (stat) => stat.isSymbolicLink(),
        () => false,
      );
      if (!link) return undefined;
      const real = await realpath(abs).catch(() => undefined);
      const target = real === undefined ? undefined : ws.relative(real);
      return target === undefined || target.startsWith('..') || target.startsWith('/') ? undefined : { name, target };
    }),
  );
  return found.filter((entry) => entry !== undefined);
}

/** The other names of the workspace path `path` through `links`: `envs/production/prod.yml` is also `conf/prod.yml`. */
export function namesThrough(links: LinkNames, path: string): string[] {
  return links.flatMap(({ name, target }) => {
    if (target === '.') return [`${name}/${path}`];
    if (path === target) return [name];
    return path.startsWith(`${target}/`) ? [name + path.slice(target.length)] : [];
  });
}
