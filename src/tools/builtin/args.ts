import { GatewayError } from '../../protocol/errors.js';

type Args = Record<string, unknown>;

// Re-checks keep a tool safe when called directly; null counts as absent (OpenAI strict mode sends null for every optional property).
function invalid(name: string, expected: string): GatewayError {
  return new GatewayError('INVALID_ARGS', {
    message: `Argument "${name}" must be ${expected}.`,
    details: { errors: [{ path: `/${name}`, message: `must be ${expected}` }] },
  });
}

export function requireString(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw invalid(name, 'a string');
  return value;
}

export function optionalString(args: Args, name: string): string | undefined {
  return args[name] == null ? undefined : requireString(args, name);
}

export function optionalBoolean(args: Args, name: string): boolean | undefined {
  const value = args[name];
  if (value == null) return undefined;
  if (typeof value !== 'boolean') throw invalid(name, 'a boolean');
  return value;
}

export function optionalNumber(args: Args, name: string, min: number, max: number, integer = false): number | undefined {
  const value = args[name];
  if (value == null) return undefined;
  const kind = integer ? 'an integer' : 'a number';
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) throw invalid(name, kind);
  if (value < min || value > max) throw invalid(name, `${kind} from ${min} to ${max}`);
  return value;
}

/** A path that must name a file (Read, Write, Edit): `dir/` and `dir/.` name a directory, refused. */
export function requireFilePath(args: Args, name: string): string {
  const value = requireString(args, name);
  if (value.endsWith('/') || value.endsWith('/.')) {
    throw new GatewayError('INVALID_ARGS', {
      message: `Path ${JSON.stringify(value)} ends with a slash: a file path cannot end with "/" or "/.".`,
      suggestion: 'Give the path of the file without the trailing slash, e.g. "dir/name.txt"; use LS for a directory.',
      details: { errors: [{ path: `/${name}`, message: 'must not end with a slash' }] },
    });
  }
  return value;
}

/** The `path` property of a tool that works on one file, in its parameters schema. */
export function filePathProperty(examples: string[]): Record<string, unknown> {
  return { type: 'string', minLength: 1, maxLength: 4096, description: 'File path relative to the workspace root.', examples };
}
