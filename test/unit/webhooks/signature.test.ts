import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signature } from '../../../src/webhooks/signature.js';

describe('signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of the exact body under the secret', () => {
    const body = '{"event":"approval.requested"}';
    expect(signature('s3cret', body)).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
    expect(signature('s3cret', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('changes with the secret and with any byte of the body', () => {
    const base = signature('a', '{}');
    expect(signature('b', '{}')).not.toBe(base);
    expect(signature('a', '{ }')).not.toBe(base);
  });
});
