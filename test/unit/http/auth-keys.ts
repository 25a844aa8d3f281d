import { createHash } from 'node:crypto';

/** The API keys of the authentication tests: one with the execute scope, one with admin, both of tenant acme. */

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const EXEC_KEY = 'tg_exec-key-of-acme-0123456789';
export const ADMIN_KEY = 'tg_admin-key-of-acme-0123456789';
export const KEYS = [
  { id: 'acme-exec', sha256: sha256(EXEC_KEY), tenant: 'acme', scopes: ['execute'] },
  { id: 'acme-admin', sha256: sha256(ADMIN_KEY), tenant: 'acme', scopes: ['admin'] },
];
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
