import { createHash, randomBytes } from 'node:crypto';

/** 6 bytes of creation time (ms) then 16 random bytes, base64url: listing alone tells an entry's age. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{30}$/;
const SAFE_TENANT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

export function newId(now: number): string {
  const bytes = Buffer.alloc(22);
  bytes.writeUIntBE(Math.max(0, Math.floor(now)), 0, 6);
  randomBytes(16).copy(bytes, 6);
  return bytes.toString('base64url');
}

export function createdAt(id: string): number {
  return Buffer.from(id, 'base64url').readUIntBE(0, 6);
}

/** The tenant itself when a plain name, else `~` and its sha256: no tenant can add a level, collide or exceed S3's key length. */
export function tenantSegment(tenant: string): string {
  return SAFE_TENANT.test(tenant) && tenant !== '..' ? tenant : `~${createHash('sha256').update(tenant, 'utf8').digest('hex')}`;
}
