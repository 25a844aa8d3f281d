import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';

/** JSON-RPC requests to POST /mcp, and the shape of its error answers, shared by the /mcp tests. */

export function rpc(method: string, params?: Record<string, unknown>, id: string | number = 1) {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** Every /mcp error answer is a JSON-RPC error body (as the MCP SDK's server answers), the gateway's code in data. */
export function expectRpcError(res: Awaited<ReturnType<typeof post>>, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(body).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: expect.any(String), data: expect.objectContaining({ code }) },
  });
  return body.error;
}

export function post(t: TestApp, payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/mcp',
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
}
