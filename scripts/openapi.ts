import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { configFrom } from '../src/config/load.js';
import { createMetrics } from '../src/observability/metrics.js';
import { createRegistry, registryDefaults } from '../src/registry/registry.js';
import { createFsSpillStore } from '../src/spill/fs.js';
import { systemClock } from '../src/shared/clock.js';
import { createMemoryStateStore } from '../src/state/memory/index.js';
import { createPolicy } from '../src/policy/index.js';
import { createBuiltinTools } from '../src/tools/builtin/index.js';

export const OPENAPI_PATH = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url));

/** The OpenAPI document as the routes' schemas describe it. */
export async function renderOpenApi(): Promise<string> {
  const config = configFrom({ workspace: tmpdir() });
  const state = createMemoryStateStore();
  const app = await buildApp(
    {
      state,
      spill: createFsSpillStore({ dir: join(tmpdir(), 'toolgate-openapi'), ttlMs: 60_000, clock: systemClock }),
      registry: createRegistry(createBuiltinTools(createPolicy([])), registryDefaults(config)),
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      metrics: createMetrics({ processMetrics: false }),
    },
    config,
  );
  await app.ready();
  const document = JSON.stringify(app.swagger(), null, 2) + '\n';
  await app.close();
  await state.close();
  return document;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(OPENAPI_PATH, await renderOpenApi());
  console.log(`wrote ${OPENAPI_PATH}`);
}
