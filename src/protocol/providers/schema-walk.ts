import { isRecord, own, resolvePointer, type JsonObject } from '../json.js';

// What every dialect's schema conversion shares: reading a JSON Schema as written (own keys only, `$ref` resolved within the document,
// `allOf` folded in) and writing one whose keys may be any name.

export type Node = JsonObject;

export interface Scope {
  root: Node;
  /** Reference targets being expanded on the current path: meeting one again is a cycle. */
  expanding: Node[];
  /** Expansions left; past them every reference is cut, so shared definitions cannot blow up the output. */
  budget: number;
}

const MAX_INLINED_REFS = 500;

/** A conversion of `root`, which is the current path's first target. */
export function newScope(root: Node): Scope {
  return { root, expanding: [root], budget: MAX_INLINED_REFS };
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

// Property and definition names come from the schema; one called `__proto__` must stay a plain key.
export function put(node: Node, key: string, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

export function mapEntries(node: Node, convert: (value: unknown) => Node): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) put(out, key, convert(value));
  return out;
}

export function without(node: Node, keys: readonly string[]): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) if (!keys.includes(key)) put(out, key, value);
  return out;
}

export function typeList(node: Node): string[] {
  const type = own(node, 'type');
  return isString(type) ? [type] : Array.isArray(type) ? type.filter(isString) : [];
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function enumValues(node: Node): unknown[] | undefined {
  if (Object.hasOwn(node, 'const')) return [node.const];
  const values = own(node, 'enum');
  return Array.isArray(values) ? values : undefined;
}

export function isNullSchema(value: unknown): boolean {
  return isRecord(value) && own(value, 'type') === 'null';
}

export function appendNote(description: unknown, note: string): string {
  return isString(description) && description !== '' ? `${description} ${note}` : note;
}

export function noteDefault(from: Node, to: Node): void {
  if (Object.hasOwn(from, 'default')) to.description = appendNote(to.description, `Default: ${JSON.stringify(from.default)}.`);
}

/** RFC 6901 pointer in a URI fragment (`#/$defs/a~1b`), resolved from the root: a schema, or undefined. */
function schemaAt(root: Node, ref: string): Node | undefined {
  const found = resolvePointer(root, ref);
  return isRecord(found) ? found : undefined;
}

/** Two schemas as if both applied (properties and required united, `base` wins otherwise): enough to describe arguments to a model. */
export function merge(base: Node, extra: Node): Node {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = own(out, key);
    if (key === 'properties' && isRecord(current) && isRecord(value)) {
      const properties = { ...current };
      for (const [name, schema] of Object.entries(value)) if (!Object.hasOwn(properties, name)) put(properties, name, schema);
      out.properties = properties;
    } else if (key === 'required' && Array.isArray(current) && Array.isArray(value)) {
      out.required = [...new Set([...current, ...value])];
    } else if (current === undefined) {
      put(out, key, value);
    }
  }
  return out;
}

/** `node`'s `$ref` replaced by its target under `node`'s keywords, converted; a cycle, no budget left or no local target goes to `cut`. */
export function inlineRef(node: Node, ref: string, scope: Scope, convert: (merged: Node) => Node, cut: (target?: Node) => Node): Node {
  const target = schemaAt(scope.root, ref);
  if (!target || scope.expanding.includes(target) || scope.budget <= 0) return cut(target);
  scope.budget -= 1;
  scope.expanding.push(target);
  try {
    // Pointers resolve from the root, so definitions nested in the target are never reached from here.
    return convert(merge(without(node, ['$ref']), without(target, ['$defs', 'definitions'])));
  } finally {
    scope.expanding.pop();
  }
}

/** Fold `allOf` into the schema; neither Gemini nor OpenAI strict mode takes it. */
export function flattenAllOf(node: Node, scope: Scope): Node {
  const branches = own(node, 'allOf');
  if (!Array.isArray(branches)) return node;
  let merged = without(node, ['allOf']);
  for (const branch of branches) {
    if (!isRecord(branch)) continue;
    const ref = own(branch, '$ref');
    let resolved = branch;
    if (isString(ref)) {
      const target = schemaAt(scope.root, ref);
      resolved = without(branch, ['$ref']);
      if (target && !scope.expanding.includes(target) && scope.budget > 0) {
        scope.budget -= 1;
        resolved = merge(resolved, without(target, ['$defs', 'definitions']));
      }
    }
    merged = merge(merged, flattenAllOf(resolved, scope));
  }
  return merged;
}

export function copyKeys(from: Node, to: Node, keys: readonly string[]): void {
  for (const key of keys) if (Object.hasOwn(from, key)) to[key] = from[key];
}

export function typeOfValues(values: unknown[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.every(isString)) return 'string';
  if (values.every((value) => typeof value === 'boolean')) return 'boolean';
  if (values.every((value) => Number.isInteger(value))) return 'integer';
  if (values.every((value) => typeof value === 'number')) return 'number';
  return undefined;
}
