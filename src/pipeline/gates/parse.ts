import { GatewayError } from '../../protocol/errors.js';
import type { Gate } from '../types.js';

/** Deeper arguments are refused so that no later step (hashing, validation, logging) can recurse without bound. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Whether `value` nests deeper than `max`, found without recursion. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Absent, null or empty arguments are `{}`: models send each for a tool that takes none. */
export function argumentsOrEmpty(raw: unknown): unknown {
  return raw === undefined || raw === null || raw === '' ? {} : raw;
}

/** Gate 1: the arguments are a JSON object (a string is parsed; absent ones are `{}`, see argumentsOrEmpty). */
export const parseGate: Gate = {
  name: 'parse',
  check(call) {
    let value = argumentsOrEmpty(call.rawArguments);
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch (err) {
        return new GatewayError('INVALID_JSON', {
          message: `The arguments are not valid JSON: ${(err as Error).message}`,
          suggestion: 'Send the arguments as one JSON object.',
        });
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return new GatewayError('INVALID_JSON', {
        message: 'The arguments must be a JSON object.',
        suggestion: 'Send the arguments as one JSON object.',
      });
    }
    if (nestsDeeperThan(value, MAX_ARGUMENT_DEPTH)) {
      return new GatewayError('INVALID_ARGS', {
        message: `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels.`,
        details: { errors: [{ path: '/', message: `nests deeper than ${MAX_ARGUMENT_DEPTH} levels` }] },
      });
    }
    call.args = value as Record<string, unknown>;
    call.sentArgs = call.args;
    return undefined;
  },
};
