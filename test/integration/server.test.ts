import { existsSync, statSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

import { BUILTINS, call, isolated, portOf, scratch, startGateway, TEST_MS, useGatewayScratch } from './server-harness.js';

useGatewayScratch();

describe('npm start works with no set-up', { timeout: TEST_MS }, () => {
  it('serves the built-ins on loopback, creates ./workspace, spills under ./data and says what it runs on', async () => {
    const gateway = startGateway({ PORT: '0' });
    const ready = await gateway.ready;
    expect(new URL(ready.address).hostname).toBe('127.0.0.1');
    expect(ready).toMatchObject({ tools: BUILTINS, state: 'memory', workspace: join(scratch, 'workspace'), keys: 0 });
    expect(statSync(join(scratch, 'workspace')).isDirectory()).toBe(true);
    expect(statSync(join(scratch, 'data', 'spill')).isDirectory()).toBe(true);

    const tools = await call(portOf(ready.address), 'GET', '/tools');
    expect(tools.status).toBe(200);
    expect(tools.json().tools.map((t: any) => t.function.name)).toEqual(BUILTINS);

    // An output over the 50 KB call budget is cut, and the whole of it lands in ./data/spill.
    await writeFile(join(scratch, 'workspace', 'big.txt'), 'x'.repeat(80).concat('\n').repeat(1_000));
    const executed = await call(portOf(ready.address), 'POST', '/execute', [{ id: 'c1', name: 'Read', arguments: { path: 'big.txt' } }]);
    expect(executed.status).toBe(200);
    const result = executed.json().results[0];
    expect(result.truncated.uri).toMatch(new RegExp(`^${pathToFileURL(join(scratch, 'data', 'spill')).href}/`));
    expect(existsSync(fileURLToPath(result.truncated.uri))).toBe(true);

    const warnings = gateway.logs.filter((l) => l.level === 40).map((l) => String(l.msg));
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/state is in memory.*only replica/),
        expect.stringMatching(/no API keys.*loopback 127\.0\.0\.1/),
      ]),
    );
  });
});

describe('a spill directory that breaks after start-up makes the gateway not ready, not down', { timeout: TEST_MS }, () => {
  it('is reported by /readyz while the process keeps serving', async () => {
    const gateway = startGateway(isolated());
    const port = portOf((await gateway.ready).address);
    expect((await call(port, 'GET', '/readyz')).status).toBe(200);
    await rm(join(scratch, 'spill'), { recursive: true });
    await writeFile(join(scratch, 'spill'), 'not a directory');
    const ready = await call(port, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'not_ready', failed: ['spill_store'] });
    expect((await call(port, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('METRICS_PORT puts the metrics on their own port', { timeout: TEST_MS }, () => {
  it('METRICS_PORT moves /metrics off the API port, and the metrics port serves nothing else', async () => {
    const gateway = startGateway(isolated({ METRICS_PORT: '0' }));
    const ready = await gateway.ready;
    const api = portOf(ready.address);
    const metrics = portOf(ready.metrics);
    expect(metrics).not.toBe(api);
    expect((await call(api, 'GET', '/metrics')).status).toBe(404);
    expect((await call(api, 'GET', '/healthz')).status).toBe(200);
    const scraped = await call(metrics, 'GET', '/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('toolgate_');
    expect((await call(metrics, 'GET', '/tools')).status).toBe(404);
  });

  it('without METRICS_PORT /metrics is on the API port; the ready line says where everything is', async () => {
    const gateway = startGateway(isolated());
    const ready = await gateway.ready;
    expect(ready.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready).toMatchObject({
      metrics: `${ready.address}/metrics`,
      tools: BUILTINS,
      state: 'memory',
      spill: pathToFileURL(join(scratch, 'spill')).href,
      workspace: join(scratch, 'ws'),
      keys: 0,
    });
    expect((await call(portOf(ready.address), 'GET', '/metrics')).status).toBe(200);
  });
});
