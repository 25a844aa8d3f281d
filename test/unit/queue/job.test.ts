import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { allowedByAll } from '../../../src/policy/index.js';
import type { Caller } from '../../../src/pipeline/types.js';
import { contextOf, EXECUTION_ID, jobOf, newExecutionId } from '../../../src/queue/job.js';

const log = pino({ level: 'silent' });

describe('newExecutionId', () => {
  it('is exec_ and 32 hex characters, new each time', () => {
    const id = newExecutionId();
    expect(id).toMatch(EXECUTION_ID);
    expect(newExecutionId()).not.toBe(id);
  });
});

describe('a job and the request it stands for', () => {
  const caller: Caller = {
    keyId: 'acme-reader',
    tenant: 'acme',
    scopes: new Set(['execute']),
    allows: allowedByAll([
      ['Read', 'L*'],
      ['Read', 'LS'],
    ]),
    tools: ['Read', 'L*'],
    only: [['Read', 'LS']],
    rateLimit: { perMinute: 30 },
  };

  it('carries the caller as its key resolved it, as JSON, with the request around it', () => {
    const job = jobOf([], caller, { sessionId: 's1', format: 'openai', timeoutMs: 500, model: 'gpt-x' }, 1_000);
    expect(JSON.parse(JSON.stringify(job))).toEqual({
      calls: [],
      tenant: 'acme',
      key_id: 'acme-reader',
      scopes: ['execute'],
      tools: ['Read', 'L*'],
      only: [['Read', 'LS']],
      rate_limit_per_minute: 30,
      session_id: 's1',
      format: 'openai',
      timeout_ms: 500,
      callback_url: null,
      submitted_at: 1_000,
      model: 'gpt-x',
    });
  });

  it('runs in the worker with the rights, session and timeout it was submitted with', () => {
    const ctx = contextOf(jobOf([], caller, { sessionId: 's1', format: 'openai', timeoutMs: 500 }, 1_000), log);
    expect(ctx).toMatchObject({ sessionId: 's1', format: 'openai', timeoutMs: 500 });
    expect(ctx.model).toBeUndefined();
    expect(ctx.caller).toMatchObject({ keyId: 'acme-reader', tenant: 'acme', rateLimit: { perMinute: 30 } });
    expect([...ctx.caller.scopes]).toEqual(['execute']);
    expect(['Read', 'LS', 'LSP', 'Write'].filter((tool) => ctx.caller.allows(tool))).toEqual(['Read', 'LS']);
  });

  it('of a key with every tool, allows every tool and sets no limits it did not have', () => {
    const open: Caller = { keyId: 'k', tenant: 't', scopes: new Set(['execute', 'admin']), allows: () => true };
    const ctx = contextOf(jobOf([], open, { sessionId: 's', format: 'openai' }, 0), log);
    expect(ctx.caller.allows('Anything')).toBe(true);
    expect(ctx.caller.tools).toBeUndefined();
    expect(ctx.caller.only).toBeUndefined();
    expect(ctx.caller.rateLimit).toBeUndefined();
    expect(ctx.timeoutMs).toBeUndefined();
  });
});
