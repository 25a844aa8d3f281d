import { createHash } from 'node:crypto';
import type { Tool } from '../../src/tools/tool.js';

/** The keys of the on_behalf tests (tenant acme): an agent backend that may name its users, a plain key, an operator. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const BACKEND_KEY = 'tg_backend-of-acme-0123456789';
export const PLAIN_KEY = 'tg_plain-of-acme-0123456789';
export const OPS_KEY = 'tg_ops-of-acme-0123456789';
export const ON_BEHALF_KEYS = [
  { id: 'backend', sha256: sha256(BACKEND_KEY), tenant: 'acme', scopes: ['execute', 'on_behalf'] },
  { id: 'plain', sha256: sha256(PLAIN_KEY), tenant: 'acme', scopes: ['execute', 'admin'] },
  { id: 'ops', sha256: sha256(OPS_KEY), tenant: 'acme', scopes: ['admin'] },
];

/** The backend's headers, for `user` when given. */
export const forUser = (user?: string): Record<string, string> => ({
  authorization: `Bearer ${BACKEND_KEY}`,
  ...(user !== undefined && { 'x-toolgate-user': user }),
});

/** A side-effecting tool that answers with the user its context names, and counts its runs. */
export function whoTool(runs: { count: number } = { count: 0 }): Tool {
  return {
    name: 'Who',
    description: 'Says who the call is for.',
    parameters: { type: 'object', additionalProperties: true },
    concurrencySafe: false,
    async run(_args, ctx) {
      runs.count += 1;
      return { text: `for ${ctx.caller.user ?? '(the key)'} run ${runs.count}` };
    },
  };
}
