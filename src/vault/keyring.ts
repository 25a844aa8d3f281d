import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM under keys named by id: the id travels in each record, so a record sealed under an earlier key still opens. */
export interface Keyring {
  /** The id new records are sealed under (TOOLGATE_VAULT_KEY_ID). */
  readonly currentId: string;
  /** `clear` encrypted and authenticated under the current key, bound to `context` (who and what it is for). */
  seal(clear: string, context: string): string;
  /** The clear text of `sealed`; throws when its key is unknown, it was altered, or it was sealed for another `context`. */
  open(sealed: string, context: string): string;
}

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A base64 (or base64url) key of exactly 32 bytes, or why it is not one. */
function decodeKey(value: string, name: string): Buffer | string {
  const key = Buffer.from(value.trim(), /[-_]/.test(value) ? 'base64url' : 'base64');
  if (key.length !== KEY_BYTES)
    return `${name} must be base64 of ${KEY_BYTES} random bytes (openssl rand -base64 32); it decodes to ${key.length} bytes`;
  return key;
}

/**
 * The vault's keys from the environment: TOOLGATE_VAULT_KEY (base64 of 32 bytes) under the id
 * TOOLGATE_VAULT_KEY_ID seals new records; TOOLGATE_VAULT_OLD_KEYS (`id:base64,id:base64`) keeps earlier keys
 * readable. Values never appear in a problem.
 */
export function keyringFromEnv(env: NodeJS.ProcessEnv): { keyring?: Keyring; problems: string[] } {
  const problems: string[] = [];
  const keys = new Map<string, Buffer>();
  const currentId = env.TOOLGATE_VAULT_KEY_ID ?? '';
  if (!env.TOOLGATE_VAULT_KEY) problems.push('TOOLGATE_VAULT_KEY: not set; grants are stored encrypted under it (openssl rand -base64 32)');
  else {
    const key = decodeKey(env.TOOLGATE_VAULT_KEY, 'TOOLGATE_VAULT_KEY');
    if (typeof key === 'string') problems.push(key);
    else keys.set(currentId, key);
  }
  if (!KEY_ID.test(currentId))
    problems.push('TOOLGATE_VAULT_KEY_ID: must name the key in 1 to 32 letters, digits, _ or - (e.g. 2026-01); records carry it');
  for (const entry of (env.TOOLGATE_VAULT_OLD_KEYS ?? '').split(',').filter((e) => e.trim() !== '')) {
    const at = entry.indexOf(':');
    const id = entry.slice(0, at).trim();
    if (at < 0 || !KEY_ID.test(id)) {
      problems.push('TOOLGATE_VAULT_OLD_KEYS: each entry must be id:base64-key, entries separated by commas');
      continue;
    }
    const key = decodeKey(entry.slice(at + 1), `TOOLGATE_VAULT_OLD_KEYS (key ${id})`);
    if (typeof key === 'string') problems.push(key);
    else if (keys.has(id)) problems.push(`TOOLGATE_VAULT_OLD_KEYS: the key id ${id} is given twice (or is the current one)`);
    else keys.set(id, key);
  }
  if (problems.length > 0) return { problems };
  return { keyring: createKeyring(currentId, keys), problems };
}

/** A keyring sealing under `keys.get(currentId)`, opening under any of `keys`. */
export function createKeyring(currentId: string, keys: ReadonlyMap<string, Buffer>): Keyring {
  const current = keys.get(currentId);
  if (!current) throw new Error(`the keyring has no key ${currentId}`);
  return {
    currentId,
    seal(clear, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      // The key id is authenticated too: a record cannot be relabelled to another key.
      cipher.setAAD(Buffer.from(`${VERSION}.${currentId}.${context}`));
      const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
      return [VERSION, currentId, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(
        '.',
      );
    },
    open(sealed, context) {
      const [version, id = '', iv = '', body = '', tag = '', ...rest] = sealed.split('.');
      if (version !== VERSION || rest.length > 0) throw new Error('not a sealed vault record');
      const key = keys.get(id);
      if (!key) throw new Error(`sealed under the key ${id}, which is not configured (TOOLGATE_VAULT_OLD_KEYS)`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(`${VERSION}.${id}.${context}`));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
