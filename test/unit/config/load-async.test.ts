import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { file, problemsOf, useConfigDir } from './load-fixtures.js';

useConfigDir();

/** The async settings are checked at start-up like every other. */
describe('async configuration', () => {
  it('defaults: no inline workers, one batch per worker, 24 h and 10,000 finished executions kept, 5 callback retries', () => {
    expect(loadConfig({}).async).toEqual({
      inline_workers: 0,
      concurrency: 1,
      retention_ms: 86_400_000,
      retention_count: 10_000,
      lock_ms: 30_000,
      callback_retries: 5,
      callback_backoff_ms: 1_000,
      callback_timeout_ms: 10_000,
      callback_allow_private_network: false,
    });
  });

  it('callback_secret reads ${VAR} from the environment', async () => {
    const path = await file('async: {callback_secret: "${CB_SECRET}"}\n');
    expect(loadConfig({ CB_SECRET: 'from-the-environment-0123' }, path).async.callback_secret).toBe('from-the-environment-0123');
  });

  it('an unset variable, or a secret shorter than 16 characters, stops start-up', async () => {
    expect(problemsOf({}, await file('async: {callback_secret: "${CB_SECRET}"}\n'))).toEqual([
      'async.callback_secret: uses ${CB_SECRET}, which is not set in the environment',
    ]);
    expect(problemsOf({}, await file('async: {callback_secret: short}\n'))).toEqual([
      'async.callback_secret: must be at least 16 characters (e.g. openssl rand -hex 32)',
    ]);
  });

  it('inline workers without REDIS_URL stop start-up; with it they are accepted', async () => {
    const path = await file('async: {inline_workers: 2}\n');
    expect(problemsOf({}, path)).toEqual([
      'async.inline_workers: async batches are queued in Redis; set REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES), or set inline_workers to 0',
    ]);
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }, path).async.inline_workers).toBe(2);
    expect(loadConfig({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_NAME: 'main' }, path).async.inline_workers).toBe(2);
    expect(loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, path).async.inline_workers).toBe(2);
  });
});
