import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { startFakeModel, type FakeModel, type ModelHandler } from './fake-model.js';

export type Json = Record<string, any>;

/**
 * The "done when": toolgate's tools and messages pass through each
 * official SDK unchanged to a model server that checks the provider's
 * documented request format. The tools go from GET /tools into the request
 * as they are, the model's reply goes to POST /execute as the SDK returned
 * it, and toolgate's `messages` are appended to the next request as they are.
 *
 * Call inside a describe: it starts a gateway with a notes.txt in its
 * workspace before the tests and closes it, and every fake model, after them.
 */
export function useRoundTrip(): {
  gateway: (path: string, body?: unknown) => Promise<Json>;
  model: (handle: ModelHandler) => Promise<FakeModel>;
} {
  let t: TestApp;
  let gatewayUrl: string;
  const models: FakeModel[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'notes.txt'), 'buy milk\nwrite tests\n');
    gatewayUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(models.map((m) => m.close()));
    await t.close();
  });

  async function gateway(path: string, body?: unknown): Promise<Json> {
    const response = await fetch(gatewayUrl + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': 'providers' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return (await response.json()) as Json;
  }

  async function model(handle: ModelHandler): Promise<FakeModel> {
    const fake = await startFakeModel(handle);
    models.push(fake);
    return fake;
  }

  return { gateway, model };
}

/** The first problem of a list of checks, or a reply. */
export function answer(problems: (string | false)[], reply: unknown): { problem: string } | { reply: unknown } {
  const problem = problems.find((p): p is string => typeof p === 'string');
  return problem ? { problem } : { reply };
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
