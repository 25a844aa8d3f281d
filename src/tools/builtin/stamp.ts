import type { Stats } from 'node:fs';
import { GatewayError } from '../../protocol/errors.js';
import { optionalNumber } from './args.js';

/** What optimistic locking compares; the mtime at stat's full precision, so one that went through JSON compares equal. */
export interface FileStamp {
  file_mtime_ms: number;
  file_size_bytes: number;
}

/** What a caller (or the gateway, from the session's last Read) says the file looked like. */
export interface Expected {
  mtimeMs?: number;
  sizeBytes?: number;
}

export function stampOf(stats: Stats): FileStamp {
  return { file_mtime_ms: stats.mtimeMs, file_size_bytes: stats.size };
}

export function expectedFrom(args: Record<string, unknown>): Expected {
  return {
    mtimeMs: optionalNumber(args, 'expected_mtime_ms', 0, Number.MAX_SAFE_INTEGER),
    sizeBytes: optionalNumber(args, 'expected_size_bytes', 0, Number.MAX_SAFE_INTEGER, true),
  };
}

export function expectedOf(stamp: FileStamp): Expected {
  return { mtimeMs: stamp.file_mtime_ms, sizeBytes: stamp.file_size_bytes };
}

/** CONFLICT when the file is not what the caller last saw. No expectation, no check. */
export function assertExpected(actual: FileStamp | null, expected: Expected, shown: string): void {
  if (expected.mtimeMs === undefined && expected.sizeBytes === undefined) return;
  const changed =
    actual === null ||
    (expected.mtimeMs !== undefined && actual.file_mtime_ms !== expected.mtimeMs) ||
    (expected.sizeBytes !== undefined && actual.file_size_bytes !== expected.sizeBytes);
  if (!changed) return;
  throw new GatewayError('CONFLICT', {
    message:
      actual === null
        ? `${JSON.stringify(shown)} was deleted since it was read; nothing was written.`
        : `${JSON.stringify(shown)} changed since it was read; nothing was written.`,
    suggestion: 'Read the file again, then redo the change against its current content.',
    details: {
      expected: { file_mtime_ms: expected.mtimeMs, file_size_bytes: expected.sizeBytes },
      actual,
    },
  });
}
