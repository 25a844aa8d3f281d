import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/protocol/errors.js';

const API_DOC = new URL('../../../docs/api.md', import.meta.url);
const OPENAPI = new URL('../../../openapi/openapi.json', import.meta.url);

/** Rows of the error table in docs/api.md: | `CODE` | status | retryable | meaning | */
async function documentedTable(): Promise<Map<string, { status: number; retryable: boolean }>> {
  const text = await readFile(API_DOC, 'utf8');
  const section = text.split('<!-- error-codes:start -->')[1]?.split('<!-- error-codes:end -->')[0];
  if (!section) throw new Error('docs/api.md has no error-codes table between its markers');
  const rows = new Map<string, { status: number; retryable: boolean }>();
  for (const line of section.split('\n')) {
    const match = /^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|\s*(yes|no)\s*\|/.exec(line);
    if (match) rows.set(match[1]!, { status: Number(match[2]), retryable: match[3] === 'yes' });
  }
  return rows;
}

describe('error codes are one closed set', () => {
  it('the docs/api.md table lists exactly the codes of protocol/errors.ts, with their status and retryable flag', async () => {
    const table = await documentedTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(table.get(code), code).toEqual({ status: spec.status, retryable: spec.retryable });
    }
  });

  it('the OpenAPI ErrorCode enum is the same set', async () => {
    const document = JSON.parse(await readFile(OPENAPI, 'utf8'));
    expect([...document.components.schemas.ErrorCode.enum].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('every documented error code exists', () => {
    for (const code of [
      'INCOMPLETE_TOOL_CALLS',
      'DUPLICATE_CALL_ID',
      'TOO_MANY_CALLS',
      'INVALID_JSON',
      'UNKNOWN_TOOL',
      'INVALID_ARGS',
      'ARG_TOO_LARGE',
      'PERMISSION_DENIED',
      'APPROVAL_REQUIRED',
      'CIRCUIT_OPEN',
      'RATE_LIMITED',
      'TIMEOUT',
      'NOT_FOUND',
      'CONFLICT',
      'UPSTREAM_ERROR',
      'EXECUTION_FAILED',
      'IDEMPOTENCY_MISMATCH',
      'STATE_UNAVAILABLE',
    ]) {
      expect(ERROR_CODES).toHaveProperty(code);
    }
  });

  it('retryable is true exactly where retrying the same call can succeed', () => {
    const retryable = Object.entries(ERROR_CODES)
      .filter(([, s]) => s.retryable)
      .map(([c]) => c)
      .sort();
    expect(retryable).toEqual([
      'APPROVAL_LIMIT',
      'APPROVAL_REQUIRED',
      'AUDIT_UNAVAILABLE',
      'CANCELLED',
      'CIRCUIT_OPEN',
      'INTERNAL',
      'ISSUER_UNAVAILABLE',
      'NOT_READY',
      'OVERLOADED',
      'RATE_LIMITED',
      'REQUEST_IN_PROGRESS',
      'REQUEST_TIMEOUT',
      'STATE_UNAVAILABLE',
      'TIMEOUT',
      'UPSTREAM_ERROR',
    ]);
  });
});
