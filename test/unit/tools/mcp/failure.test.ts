import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/protocol/errors.js';
import { classifyMcpFailure, isConnectionLoss, upstreamDown } from '../../../../src/tools/mcp/failure.js';

const live = new AbortController().signal;

describe('classifyMcpFailure: what a failed upstream call answers, and whether the breaker counts it', () => {
  it('a refused request (unknown tool, invalid params) is rejected and not retryable', () => {
    const err = classifyMcpFailure(new McpError(ErrorCode.InvalidParams, 'bad args'), 'files', live);
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: false, details: { server: 'files', reason: 'rejected' } });
  });

  it("a server's refusal of its own result is told once and short: no doubled SDK prefix, no kilobytes of schema dump", () => {
    const dump = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ path: ['content', i, 'data'], message: 'Invalid base64' })));
    const err = classifyMcpFailure(
      new McpError(ErrorCode.InvalidParams, `MCP error -32602: Invalid tools/call result: ${dump}`),
      'fx',
      live,
    );
    expect(err.message.startsWith('MCP server fx refused the call: Invalid tools/call result: [')).toBe(true);
    expect(err.message).not.toContain('MCP error');
    expect(err.message.length).toBeLessThan(400);
    expect(err.details).toMatchObject({ rpc_code: ErrorCode.InvalidParams });
  });

  it('a closed connection is a crash; another JSON-RPC error an rpc_error; anything else transport', () => {
    expect(classifyMcpFailure(new McpError(ErrorCode.ConnectionClosed, 'gone'), 's', live).details).toMatchObject({ reason: 'crash' });
    expect(classifyMcpFailure(new McpError(ErrorCode.InternalError, 'boom'), 's', live)).toMatchObject({
      retryable: true,
      details: { reason: 'rpc_error', rpc_code: ErrorCode.InternalError },
    });
    expect(classifyMcpFailure(new Error('socket hang up'), 's', live).details).toEqual({ server: 's', reason: 'transport' });
  });

  it('an aborted call or an SDK timeout is TIMEOUT; a GatewayError passes as it is', () => {
    expect(classifyMcpFailure(new Error('aborted'), 's', AbortSignal.abort()).code).toBe('TIMEOUT');
    expect(classifyMcpFailure(new McpError(ErrorCode.RequestTimeout, 'late'), 's', live).code).toBe('TIMEOUT');
    const own = new GatewayError('INVALID_ARGS', { message: 'no' });
    expect(classifyMcpFailure(own, 's', live)).toBe(own);
  });
});

describe('the connection and the server being down', () => {
  it('only a closed connection or an error that is not the gateway own means the connection is lost', () => {
    expect(isConnectionLoss(new McpError(ErrorCode.ConnectionClosed, 'gone'))).toBe(true);
    expect(isConnectionLoss(new McpError(ErrorCode.InvalidParams, 'bad'))).toBe(false);
    expect(isConnectionLoss(new Error('EPIPE'))).toBe(true);
    expect(isConnectionLoss(new GatewayError('INVALID_ARGS', { message: 'no' }))).toBe(false);
  });

  it('a call to a server not connected is a retryable UPSTREAM_ERROR, reason down', () => {
    expect(upstreamDown('files')).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { server: 'files', reason: 'down' } });
  });
});
