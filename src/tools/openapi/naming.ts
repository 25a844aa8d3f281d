import { sha256Hex } from '../../protocol/canonical.js';
import type { OperationHead } from './document.js';
import { toolNameOf } from './openapi-tool.js';

/**
 * The name an operation without an `operationId` goes by (what `include` matches): its method and path key, every run of characters
 * outside `A-Z a-z 0-9` made one `_`, none at either end: `GET /users/{id}/repos` → `get_users_id_repos`.
 */
export function routeIdOf(operation: Pick<OperationHead, 'method' | 'path'>): string {
  return `${operation.method}_${operation.path}`.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/**
 * Each operation's tool name, in the operations' order. With an `operationId`: `prefix` + it (toolNameOf). Without: `prefix` + its route
 * id; when another operation of the source would have the same name, it ends in `_` and 8 hex of the SHA-256 of `METHOD path` instead, so
 * the rule depends on no order and two documents that differ elsewhere name it the same. Clashes between operationIds are left to the caller.
 */
export function toolNamesOf(prefix: string, operations: readonly Pick<OperationHead, 'method' | 'path' | 'operationId'>[]): string[] {
  const plain = operations.map((op) => toolNameOf(prefix, op.operationId ?? routeIdOf(op)));
  const count = new Map<string, number>();
  for (const name of plain) count.set(name, (count.get(name) ?? 0) + 1);
  return operations.map((op, i) => {
    const name = plain[i]!;
    if (op.operationId !== undefined || count.get(name) === 1) return name;
    return toolNameOf(prefix, `${routeIdOf(op)}_${sha256Hex(`${op.method.toUpperCase()} ${op.path}`).slice(0, 8)}`);
  });
}
