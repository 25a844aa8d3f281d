import { chownSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../protocol/errors.js';
import { createWorkspace } from './workspace.js';
import type { Workspace } from './workspace-types.js';

/**
 * Where each tenant's files are (docs/auth.md, "Tenant workspaces"): a tenant's own root, `<workspace>/<tenant>/` unless the config names
 * one (`tenants.<name>.workspace`). Without keys the only caller is the local one (tenant `local`), and it keeps the workspace root itself,
 * as before tenants had roots; once keys are configured every tenant, `local` included, has its own.
 */
interface WorkspaceLayout {
  /** The configured workspace, resolved. */
  base: string;
  /** No keys configured: the local caller works in `base` itself. */
  keyless: boolean;
  /** Tenants whose root the config names, resolved. */
  configured: ReadonlyMap<string, string>;
}

/** The tenant of a gateway without keys (http/auth.ts LOCAL_CALLER). */
const KEYLESS_TENANT = 'local';

export function workspaceLayout(config: Pick<Config, 'workspace' | 'tenants' | 'keys'>): WorkspaceLayout {
  return {
    base: path.resolve(config.workspace),
    keyless: config.keys.length === 0,
    configured: new Map(Object.entries(config.tenants).map(([tenant, settings]) => [tenant, path.resolve(settings.workspace)])),
  };
}

/** The root of `tenant`'s workspace, and whether the config named it. */
function rootOf(layout: WorkspaceLayout, tenant: string): { root: string; configured: boolean } {
  const named = layout.configured.get(tenant);
  if (named !== undefined) return { root: named, configured: true };
  if (layout.keyless && tenant === KEYLESS_TENANT) return { root: layout.base, configured: true };
  return { root: path.join(layout.base, tenant), configured: false };
}

/** The tenants whose roots a configuration gives: those of its keys (or the keyless caller) and those it names. */
export function layoutTenants(layout: WorkspaceLayout, keys: Config['keys']): string[] {
  const callers = layout.keyless ? [KEYLESS_TENANT] : keys.map((k) => k.tenant);
  return [...new Set([...callers, ...layout.configured.keys()])];
}

/** `p` with the symbolic links of its longest existing prefix resolved, so two spellings of one folder compare equal. */
function realish(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realish(parent), path.basename(p));
  }
}

const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);

/** Every pair of `tenants` whose roots are one folder or one inside the other: each would read and change the other's files. */
export function rootOverlapProblems(layout: WorkspaceLayout, tenants: readonly string[]): string[] {
  const roots = tenants.map((tenant) => ({ tenant, root: rootOf(layout, tenant).root, real: realish(rootOf(layout, tenant).root) }));
  const problems: string[] = [];
  roots.forEach((a, i) => {
    for (const b of roots.slice(i + 1)) {
      const [outer, inner] = within(b.real, a.real) ? [a, b] : [b, a];
      if (!within(inner.real, outer.real)) continue;
      const how = inner.real === outer.real ? 'are the same folder' : `nest (${inner.root} is inside ${outer.root})`;
      problems.push(
        `tenants: the workspace roots of tenants "${outer.tenant}" (${outer.root}) and "${inner.tenant}" (${inner.root}) ${how}; each tenant needs a root of its own (tenants.<name>.workspace)`,
      );
    }
  });
  return problems;
}

/**
 * Every tenant whose root holds one of the gateway's own directories (`dirs`: the spill store's, the audit trail's, by the setting that
 * names each), or lies inside one: its file tools and Bash would list, read and change every tenant's spilled outputs or audit records.
 * Without keys the one caller's root is the workspace, and what lies there is its own.
 */
export function storeInRootProblems(
  layout: WorkspaceLayout,
  tenants: readonly string[],
  dirs: ReadonlyArray<{ setting: string; dir: string }>,
): string[] {
  if (layout.keyless) return [];
  const problems: string[] = [];
  for (const { setting, dir } of dirs) {
    const real = realish(path.resolve(dir));
    for (const tenant of tenants) {
      const root = realish(rootOf(layout, tenant).root);
      if (!within(real, root) && !within(root, real)) continue;
      const how = within(real, root) ? 'is inside' : 'holds';
      problems.push(
        `${setting} ${how} the workspace root of tenant "${tenant}" (${root}): that tenant's calls would read and change every tenant's files there; put it outside every tenant's root`,
      );
    }
  }
  return problems;
}

/** Each tenant's workspace, its root made (and checked) on first use. */
export interface Workspaces {
  /** The workspace of `tenant`; a GatewayError (EXECUTION_FAILED) when its root cannot be made or used. */
  of(tenant: string): Workspace;
  /** The root of `tenant`, made when absent; throws a plain Error saying why it cannot be (start-up lists it). */
  make(tenant: string): string;
}

export function createWorkspaces(layout: WorkspaceLayout): Workspaces {
  const made = new Map<string, Workspace>();
  function make(tenant: string): string {
    const { root, configured } = rootOf(layout, tenant);
    const first = mkdirSync(root, { recursive: true });
    // A gateway running as root runs commands as the workspace's owner (bash/identity.ts): a folder it makes is that owner's.
    if (first !== undefined && process.getuid?.() === 0) {
      const { uid, gid } = statSync(layout.base);
      chownSync(root, uid, gid);
    }
    // A link in the place of a tenant's folder (made while the workspace was one for everyone) could lead anywhere.
    if (!configured && lstatSync(root).isSymbolicLink())
      throw new Error(`${root} is a symbolic link; a tenant's workspace under ${layout.base} must be a folder`);
    return root;
  }
  return {
    make,
    of(tenant) {
      let ws = made.get(tenant);
      if (ws) return ws;
      try {
        ws = createWorkspace(make(tenant));
      } catch {
        throw new GatewayError('EXECUTION_FAILED', {
          message: "This tenant's workspace folder cannot be made, or is not a folder; the operator must fix it.",
        });
      }
      made.set(tenant, ws);
      return ws;
    },
  };
}
