import { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import type { Gate, PlannedCall } from '../types.js';
import { counted } from '../../shared/count.js';

const MAX_REPORTED_ERRORS = 20;

/** The first string longer than `limit` characters, at any depth, as a JSON pointer. */
function oversizedString(value: unknown, limit: number, path: string, depth: number): string | undefined {
  if (typeof value === 'string') return value.length > limit ? path || '/' : undefined;
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = oversizedString(child, limit, `${path}/${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** ARG_TOO_LARGE for the first argument over its tool's limit, naming the limit and the setting that raises it. */
function oversizedArgument(entry: RegisteredTool, args: Record<string, unknown>): GatewayError | undefined {
  const { content, contentChars, otherChars, otherIsOwn } = entry.argLimits;
  for (const [key, value] of Object.entries(args)) {
    const isContent = content.has(key);
    const limit = isContent ? contentChars : otherChars;
    const path = oversizedString(value, limit, `/${key}`, 1);
    if (!path) continue;
    const setting = isContent ? `builtins.${entry.name}.max_arg_chars` : otherIsOwn ? `max_arg_chars of ${entry.name}` : 'limits.arg_chars';
    return new GatewayError('ARG_TOO_LARGE', {
      message: `The argument at ${path} is over ${counted(limit, 'character')}, the limit set by ${setting}.`,
      details: { path, limit, setting },
      suggestion: isContent
        ? `Send the file in parts: Write the first part, then add each next one with Edit (old_string: the last line so far, new_string: that line followed by the part); or raise ${setting}.`
        : `Send a value of at most ${counted(limit, 'character')}, or raise ${setting}${otherIsOwn ? '' : ` (max_arg_chars of ${entry.name} for this tool alone)`}.`,
    });
  }
  return undefined;
}

type Schema = Record<string, unknown>;

function acceptsNull(schema: Schema): boolean {
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const branches = [schema.anyOf, schema.oneOf].filter(Array.isArray).flat() as Schema[];
  return branches.some((b) => b && typeof b === 'object' && acceptsNull(b));
}

/** Drops the nulls OpenAI strict mode sends for optional properties, where the tool's own schema does not take null. */
function dropStrictNulls(schema: Schema, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items || typeof items !== 'object') return value;
    const mapped = value.map((v) => dropStrictNulls(items as Schema, v));
    return mapped.some((v, i) => v !== value[i]) ? mapped : value;
  }
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) return value;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  let out: Record<string, unknown> | undefined;
  for (const [key, child] of Object.entries(value)) {
    const own = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!own) continue;
    const next = child === null && !required.has(key) && !acceptsNull(own) ? undefined : dropStrictNulls(own, child);
    if (next !== child) {
      out ??= { ...(value as Record<string, unknown>) };
      if (next === undefined) delete out[key];
      else out[key] = next;
    }
  }
  return out ?? value;
}

/** String sizes, then the tool's JSON Schema with every error reported. */
function validArgs(call: PlannedCall): GatewayError | undefined {
  const entry = call.entry!;
  const args = dropStrictNulls(entry.tool.parameters, call.args!) as Record<string, unknown>;
  call.args = args;
  const oversized = oversizedArgument(entry, args);
  if (oversized) return oversized;
  if (entry.validate(args)) return undefined;
  const errors = (entry.validate.errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((e) => ({
    path: e.instancePath || '/',
    message:
      e.keyword === 'additionalProperties'
        ? `unknown property ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`
        : (e.message ?? 'is invalid'),
  }));
  return new GatewayError('INVALID_ARGS', {
    message: `The arguments do not match the schema of ${entry.name}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
    details: { errors },
    suggestion: `Fix the arguments to match the parameters of ${entry.name} and call it again.`,
  });
}

/** Gate 3. */
export const validateGate: Gate = { name: 'validate', check: validArgs };
