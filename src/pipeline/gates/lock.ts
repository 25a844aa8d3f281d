import { posix } from 'node:path';
import type { LockMeta, SettleRequest } from '../../state/state-store.js';
import type { ToolOutput } from '../../tools/tool.js';
import type { PipelineDeps, PlannedCall } from '../types.js';

/*
 * Gate 5, lock injection: a write runs against the file as this session last
 * saw it, so a change made since is a CONFLICT (the tool's answer). What a
 * session saw is stored by the state store (state/memory/locks.ts,
 * state/redis/lua/includes/lock.lua).
 */

/**
 * The cache key of a workspace path: `./a//b/../c.txt` and `a/c.txt` are the
 * same file. The tool itself still confines and resolves the real path.
 */
function normalizeLockPath(path: string): string {
  const normal = posix.normalize(path.replaceAll('\\', '/'));
  return normal.replace(/^\.\/+/, '').replace(/\/+$/, '') || '.';
}

function pathArg(call: PlannedCall): string | undefined {
  const lock = call.entry!.tool.lock;
  // The tool's canonical spelling first: the absolute path of a workspace file, or a link to it, is the same file too.
  const value = lock ? (call.spellings?.[0] ?? call.args!)[lock.pathArg] : undefined;
  return typeof value === 'string' ? normalizeLockPath(value) : undefined;
}

/**
 * Gate 5, first half: a write the caller sent without `expected_mtime_ms` asks
 * for the session's last Read of its path (the caller's
 * `expected_size_bytes` alone does not stop the injection: only an mtime does).
 */
export function lockPathToFetch(call: PlannedCall): string | undefined {
  if (call.entry!.tool.lock?.role !== 'write') return undefined;
  // null counts as absent: strict-mode models send null for every optional field.
  if (call.args!.expected_mtime_ms != null) return undefined;
  return pathArg(call);
}

/**
 * Gate 5, second half: the arguments the tool runs with carry the lock the session saw; a size the caller gave is kept.
 * Set on the arguments object itself, not a copy: the tool runs on the path resolution its policy decision made,
 * which is kept for that very object (Tool.canonicalArgs), and a copy would be resolved afresh, to wherever a link
 * made since by an earlier call of the batch leads.
 */
export function injectLock(call: PlannedCall, meta: LockMeta | null): void {
  if (!meta) return;
  const args = call.args!;
  args.expected_size_bytes ??= meta.file_size_bytes;
  args.expected_mtime_ms = meta.file_mtime_ms;
}

/**
 * After a successful Read the session holds the file's mtime and size; after a
 * successful Write or Edit it holds the new ones, so a second Edit of the same
 * file does not conflict with the gateway's own first Edit.
 */
export function lockToStore(call: PlannedCall, output: ToolOutput): { path: string; meta: LockMeta } | undefined {
  const path = pathArg(call);
  const data = output.data as Partial<LockMeta> | undefined;
  if (!path || typeof data?.file_mtime_ms !== 'number' || typeof data.file_size_bytes !== 'number') return undefined;
  return { path, meta: { file_mtime_ms: data.file_mtime_ms, file_size_bytes: data.file_size_bytes } };
}

/**
 * Gate 9's lock half: what a call that succeeded leaves (lockToStore), kept for the configured time; a failed call leaves what the session
 * saw as it was.
 */
export function lockSettlePart(call: PlannedCall, output: ToolOutput | undefined, deps: PipelineDeps): SettleRequest['lock'] {
  const lock = output && !output.error ? lockToStore(call, output) : undefined;
  return lock && { ...lock, ttlMs: deps.config.state.lock_ttl_ms };
}
