import type { CredentialProvider } from '../tools/credentials.js';
import type { Vault } from './vault.js';

/** `base`'s secrets, and each caller's own tokens from `vault`. */
export function withGrants(base: CredentialProvider, vault: Vault): CredentialProvider {
  return {
    problem: (name, what) => base.problem(name, what),
    for(tool, caller) {
      const credentials = base.for(tool, caller);
      return {
        get: (name) => credentials.get(name),
        token: (auth) => (caller ? vault.token(caller, auth) : credentials.token(auth)),
      };
    },
  };
}
