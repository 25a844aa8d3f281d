import { inspect } from 'node:util';

const HIDDEN = '[REDACTED]';

/**
 * The caller's own access token (docs/auth.md), carried from authentication to the vault for token exchange (docs/credentials.md): its
 * value is in a private field, read only by `reveal()`, so serializing or logging a caller that holds it shows `[REDACTED]`.
 */
export class SubjectToken {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return HIDDEN;
  }

  toString(): string {
    return HIDDEN;
  }

  [inspect.custom](): string {
    return HIDDEN;
  }
}
