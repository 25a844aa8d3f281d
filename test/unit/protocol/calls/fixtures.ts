import { parseEnvelope, type ParsedEnvelope } from '../../../../src/protocol/calls/index.js';
import { GatewayError } from '../../../../src/protocol/errors.js';

/** parseEnvelope with the default batch limit, the error it throws, and one call of each provider's shape, for the calls-*.test.ts files. */

const options = { maxCalls: 64 };

export function parse(body: unknown, overrides: Partial<Parameters<typeof parseEnvelope>[1]> = {}): ParsedEnvelope {
  return parseEnvelope(body, { ...options, ...overrides });
}

export function errorOf(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

export const openaiCall = { id: 'call_a', type: 'function', function: { name: 'Read', arguments: '{"path":"a.txt"}' } };
export const anthropicCall = { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { path: 'a.txt' } };
export const geminiPart = { functionCall: { id: 'g_a', name: 'Read', args: { path: 'a.txt' } } };
export const responsesCall = {
  type: 'function_call',
  id: 'fc_1',
  call_id: 'call_r',
  name: 'Read',
  arguments: '{"path":"a.txt"}',
  status: 'completed',
};
