import type { ErrorObject, ValidateFunction } from 'ajv';

/** Lists of items that fail alone: a broken tool, MCP server, key or rule is left out, a broken builtins entry emptied. */
const ITEMS = [['tools'], ['mcp_servers'], ['keys'], ['policy', 'rules'], ['builtins']];

/** The path to leave out for `error`: its top-level section, or else the whole item it is in, or else the failing value itself. */
function cutFor(error: ErrorObject, wholeSection: boolean): string[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') path.push((error.params as { additionalProperty: string }).additionalProperty);
  if (wholeSection) return path.slice(0, 1);
  const item = ITEMS.find((prefix) => path.length > prefix.length && prefix.every((part, k) => path[k] === part));
  return item ? path.slice(0, item.length + 1) : path;
}

function cut(doc: Record<string, unknown>, paths: string[][]): void {
  // Array items are removed after everything else, so that no removal moves a path still to be cut.
  const items = new Map<unknown[], Set<number>>();
  for (const path of paths) {
    let parent: unknown = doc;
    for (const part of path.slice(0, -1))
      parent = typeof parent === 'object' && parent !== null ? (parent as Record<string, unknown>)[part] : undefined;
    const last = path.at(-1);
    if (last === undefined || typeof parent !== 'object' || parent === null) continue;
    if (Array.isArray(parent)) items.set(parent, (items.get(parent) ?? new Set()).add(Number(last)));
    else if (path.length === 2 && path[0] === 'builtins') (parent as Record<string, unknown>)[last] = {};
    else delete (parent as Record<string, unknown>)[last];
  }
  for (const [list, doomed] of items) {
    const kept = list.filter((_, i) => !doomed.has(i));
    list.splice(0, list.length, ...kept);
  }
}

/**
 * `doc` with what fails `validate` left out and defaults in its place (a
 * tool, key or rule dropped, a builtins entry emptied, another value back to
 * its default), so the checks that need a valid shape (the tools, the policy
 * rules against them) still run on every part that has one. Items go first,
 * whole sections only if that is not enough.
 */
export function soundPart<T>(doc: Record<string, unknown>, errors: ErrorObject[], validate: ValidateFunction<T>): T {
  const copy = structuredClone(doc);
  let remaining = errors;
  for (const wholeSection of [false, true]) {
    cut(
      copy,
      remaining.map((error) => cutFor(error, wholeSection)),
    );
    if (validate(copy)) return copy;
    remaining = validate.errors ?? [];
  }
  const defaults = {};
  if (!validate(defaults)) throw new Error('the configuration schema rejects its own defaults');
  return defaults as T;
}
