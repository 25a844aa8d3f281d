import { hash } from 'node:crypto';
import { GatewayError } from './errors.js';

/**
 * JSON with object keys sorted at every depth, so that the same arguments in any key order hash alike (replay fingerprints, approval
 * bindings).
 */
export function canonicalJson(value: unknown, maxDepth = MAX_CANONICAL_DEPTH): string {
  return canonical(value, maxDepth);
}

/** Deep enough for any real request; a deeper one is refused rather than allowed to exhaust the stack. */
export const MAX_CANONICAL_DEPTH = 256;

function canonical(value: unknown, depthLeft: number): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depthLeft === 0) {
    throw new GatewayError('BAD_REQUEST', { message: `The request nests deeper than ${MAX_CANONICAL_DEPTH} levels.` });
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depthLeft - 1)).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], depthLeft - 1)}`).join(',')}}`;
}

// One-shot hash(), not a Hash object per digest: every call result is digested (the log line's result_sha256).
export function sha256Hex(text: string | Buffer): string {
  return hash('sha256', text, 'hex');
}
