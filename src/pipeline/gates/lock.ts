import { posix } from 'node:path';
import type { LockMeta, SettleRequest } from '../../state/state-store.js';
import type { ToolOutput } from '../../tools/tool.js';
import type { Gate, PipelineDeps, PlannedCall } from '../types.js';

// What a session saw is the store's: state/memory/locks.ts and state/redis/lua/includes/lock.lua.

/** The cache key of a workspace path: `./a//b/../c.txt` and `a/c.txt` are the same file. */
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

/** A write sent without `expected_mtime_ms` asks for the session's last Read of its path (a size alone does not stop it). */
export function lockPathToFetch(call: PlannedCall): string | undefined {
  if (call.entry!.tool.lock?.role !== 'write') return undefined;
  // null counts as absent: strict-mode models send null for every optional field.
  if (call.args!.expected_mtime_ms != null) return undefined;
  return pathArg(call);
}

/**
 * The arguments carry the lock the session saw; a size the caller gave is kept. Set on the arguments object itself: the tool runs
 * on the path resolution its policy decision made for that very object (Tool.canonicalArgs).
 */
export function injectLock(call: PlannedCall, meta: LockMeta | null): void {
  if (!meta) return;
  const args = call.args!;
  args.expected_size_bytes ??= meta.file_size_bytes;
  args.expected_mtime_ms = meta.file_mtime_ms;
}

/** After a successful Read, Write or Edit the session holds the file's mtime and size, so two Edits in a row do not conflict. */
export function lockToStore(call: PlannedCall, output: ToolOutput): { path: string; meta: LockMeta } | undefined {
  const path = pathArg(call);
  const data = output.data as Partial<LockMeta> | undefined;
  if (!path || typeof data?.file_mtime_ms !== 'number' || typeof data.file_size_bytes !== 'number') return undefined;
  return { path, meta: { file_mtime_ms: data.file_mtime_ms, file_size_bytes: data.file_size_bytes } };
}

/** What a call that succeeded leaves; a failed call leaves what the session saw as it was. */
function lockSettlePart(call: PlannedCall, output: ToolOutput | undefined, deps: PipelineDeps): SettleRequest['lock'] {
  const lock = output && !output.error ? lockToStore(call, output) : undefined;
  return lock && { ...lock, ttlMs: deps.config.state.lock_ttl_ms };
}

/** Gate 5: a write runs against the file as this session last saw it, so a change made since is the tool's CONFLICT. */
export const lockGate: Gate = {
  name: 'lock injection',
  admit(call, request) {
    const path = lockPathToFetch(call);
    if (path !== undefined) request.lockPath = path;
  },
  needsStore: (request) => request.lockPath !== undefined,
  admitted(call, admission, request) {
    if (request.lockPath !== undefined) injectLock(call, admission.lock);
  },
  settle({ call, output }, request, _ctx, deps) {
    const lock = lockSettlePart(call, output, deps);
    if (lock) request.lock = lock;
  },
};
