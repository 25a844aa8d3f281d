/** A parsed JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own properties only: a `__proto__` key in the JSON is plain data, and nothing inherited counts. */
export function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** RFC 6901 pointer in a URI fragment (`#/components/schemas/a~1b`), from the document's root; undefined when it names nothing. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if ((!isRecord(current) && !Array.isArray(current)) || !Object.hasOwn(current, segment)) return undefined;
    current = (current as JsonObject)[segment];
  }
  return current;
}
