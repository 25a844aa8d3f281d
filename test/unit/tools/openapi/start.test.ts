import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { createRegistry, registryDefaults } from '../../../../src/registry/registry.js';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';
import { createHttpDispatchers } from '../../../../src/tools/http/index.js';
import { startOpenApiSources } from '../../../../src/tools/openapi/index.js';
import { yamlAliasBomb } from '../../../fixtures/openapi/hostile.js';
import { doc, tempDocs } from './helpers.js';

/** Sources load in the background: each one's tools join the registry when read, and the log says what happened to each. */
let docs: Awaited<ReturnType<typeof tempDocs>>;
beforeAll(async () => {
  docs = await tempDocs();
});
afterAll(() => docs.cleanup());

// Never used to connect: these documents are files.
const dispatchers = createHttpDispatchers();

function start(sources: Array<Record<string, unknown>>) {
  const config = configFrom({ openapi_sources: sources });
  const registry = createRegistry([], registryDefaults(config));
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const loads = startOpenApiSources(config.openapi_sources, registry, { dispatchers, credentials: createEnvCredentials({}), baseDir: '/', logger });
  return { registry, lines, loads };
}

describe('startOpenApiSources', () => {
  it("a tool name another source's tool holds leaves that tool out, logged; the rest of both sources is served", async () => {
    const a = await docs.file('a.json', doc({ '/ping': { get: { operationId: 'ping', responses: {} } }, '/a': { get: { operationId: 'only_a', responses: {} } } }));
    const b = await docs.file('b.json', doc({ '/ping': { get: { operationId: 'ping', responses: {} } }, '/b': { get: { operationId: 'only_b', responses: {} } } }));
    const { registry, lines, loads } = start([
      { name: 'a', spec: a },
      { name: 'b', spec: b },
    ]);
    await loads.settled;
    expect(registry.list().map((e) => e.name)).toEqual(['only_a', 'only_b', 'ping']);
    expect(lines.filter((l) => l.msg === 'OpenAPI tool left out: its name is refused')).toEqual([
      expect.objectContaining({ level: 50, openapi_source: expect.stringMatching(/^[ab]$/), problem: expect.stringMatching(/^ping: another tool has this name/) }),
    ]);
  });

  it('close() ends a load under way at once and reports nothing of it', async () => {
    const bomb = await docs.file('bomb.yaml', yamlAliasBomb(1));
    const { registry, lines, loads } = start([{ name: 'bomb', spec: bomb, spec_timeout_ms: 60_000 }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await loads.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(registry.list()).toEqual([]);
    expect(lines.filter((l) => l.openapi_source === 'bomb')).toEqual([]);
  });
});
