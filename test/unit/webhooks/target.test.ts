import { describe, expect, it } from 'vitest';
import { targetProblem } from '../../../src/webhooks/target.js';

const problem = (url: string, allowPrivate = false) => targetProblem(url, allowPrivate, 'approvals.webhook_url', 'the allowance');

describe('targetProblem', () => {
  it('takes an absolute http(s) URL to a public host', () => {
    expect(problem('https://hooks.example.com/toolgate')).toBeUndefined();
    expect(problem('http://203.0.113.10:8080/')).toBeUndefined();
  });

  it('refuses what is not an absolute http(s) URL, naming the setting', () => {
    expect(problem('/relative')).toBe('approvals.webhook_url: "/relative" is not an absolute URL');
    expect(problem('ftp://example.com/')).toBe('approvals.webhook_url: must be an http(s) URL, got ftp:');
  });

  it('refuses loopback, private and localhost targets unless private networks are allowed', () => {
    for (const url of ['http://127.0.0.1/', 'http://10.1.2.3/', 'http://[::1]:9000/', 'http://localhost/', 'http://api.localhost/']) {
      expect(problem(url)).toMatch(/^approvals\.webhook_url: .+ is not a public address; .* only with the allowance$/);
      expect(problem(url, true)).toBeUndefined();
    }
  });
});
