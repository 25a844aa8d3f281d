import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '../../../scripts/openapi.js';
import { buildTestApp } from '../../helpers/app.js';

describe('openapi/openapi.json', () => {
  it('matches the document the routes generate (run `npm run openapi` after changing a route)', async () => {
    const committed = await readFile(OPENAPI_PATH, 'utf8');
    expect(committed).toBe(await renderOpenApi());
  });

  it('documents every endpoint the gateway serves', async () => {
    const document = JSON.parse(await readFile(OPENAPI_PATH, 'utf8'));
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const op of [
      'GET /tools',
      'GET /tools/{name}',
      'POST /execute',
      'GET /outputs/{id}',
      'GET /approvals',
      'POST /approvals/{id}',
      'GET /circuits',
      'POST /circuits/{tool}/reset',
      'GET /healthz',
      'GET /readyz',
      'GET /metrics',
    ]) {
      expect(operations).toContain(op);
    }
  });
});

describe('GET /openapi.json and /docs', () => {
  it('serve the document and a browsable UI without a key', async () => {
    const t = await buildTestApp({ config: { keys: [{ id: 'k', tenant: 't', scopes: ['execute'], sha256: 'a'.repeat(64) }] } });
    try {
      const document = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(document.statusCode).toBe(200);
      expect(document.json().openapi).toBe('3.1.0');
      expect(Object.keys(document.json().paths)).toContain('/execute');
      const ui = await t.app.inject({ method: 'GET', url: '/docs' });
      expect(ui.statusCode).toBe(200);
      expect(ui.headers['content-type']).toMatch(/^text\/html/);
    } finally {
      await t.close();
    }
  });
});
