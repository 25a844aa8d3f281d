import { isRecord, resolvePointer, type JsonObject } from '../../protocol/json.js';

// A reference to a reference to … past this many is a loop (`A: {$ref: B}`, `B: {$ref: A}`) or an attack on the loader.
const MAX_REF_CHAIN = 32;

/** Whether `ref` is one the import follows: within the document. Others (files, URLs) are never read. */
export const isInternalRef = (ref: string): boolean => ref.startsWith('#');

/**
 * `value` with its internal `$ref`s followed (a parameter, a request body, a path item, the top of a schema); an external one is returned
 * as it is, for the caller to name. Throws a plain Error for a reference that points nowhere or a chain that loops.
 */
export function followRef(root: JsonObject, value: unknown): unknown {
  let current = value;
  for (let hops = 0; isRecord(current) && typeof current.$ref === 'string' && isInternalRef(current.$ref); hops++) {
    if (hops === MAX_REF_CHAIN) throw new Error(`its $ref ${JSON.stringify(current.$ref)} is a chain of more than ${MAX_REF_CHAIN} references (a loop)`);
    const target = resolvePointer(root, current.$ref);
    if (target === undefined) throw new Error(`its $ref ${JSON.stringify(current.$ref)} points nowhere in the document`);
    current = target;
  }
  return current;
}
