import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configFrom } from '../../../../src/config/load.js';
import { createHttpDispatchers } from '../../../../src/tools/http/index.js';
import { loadOpenApiSources, type OpenApiTools } from '../../../../src/tools/openapi/index.js';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';

export const FIXTURES = resolve('test/fixtures/openapi');

// Never used to connect: these tests read files only.
const dispatchers = createHttpDispatchers();

/** Load `sources` (config entries, defaults filled by the config schema) as start-up does. */
export function load(sources: Array<Record<string, unknown>>, env: NodeJS.ProcessEnv = {}, taken?: Set<string>): Promise<OpenApiTools> {
  const config = configFrom({ openapi_sources: sources });
  return loadOpenApiSources(config.openapi_sources, { dispatchers, credentials: createEnvCredentials(env), baseDir: FIXTURES, ...(taken && { taken }) });
}

/** A temp folder to write small documents in; `file(name, doc)` returns its path. */
export async function tempDocs(): Promise<{ file(name: string, doc: unknown): Promise<string>; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-openapi-'));
  return {
    async file(name, doc) {
      const path = join(dir, name);
      await writeFile(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A minimal OpenAPI 3.1 document with these paths. */
export function doc(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, servers: [{ url: 'https://api.example.com/v1' }], paths, ...extra };
}
