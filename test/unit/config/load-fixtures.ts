import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load.js';

/** The temporary directory of the current test, made by useConfigDir. */
export let dir: string;

/** A fresh temporary directory for each test of the calling file, for file() to write configurations into. */
export function useConfigDir(): void {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-config-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
}

export async function file(text: string): Promise<string> {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(path, text);
  return path;
}

/** The problems loadConfig refuses with; fails the test when it accepts. */
export function problemsOf(env: NodeJS.ProcessEnv, path?: string): string[] {
  try {
    loadConfig(env, path);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    for (const problem of problems) expect((err as Error).message).toContain(problem);
    return problems;
  }
  throw new Error('loadConfig accepted the configuration');
}

export const HTTP_TOOL = {
  description: 'A tool.',
  parameters: { type: 'object' },
  http: { method: 'GET', url: 'https://api.example.com/x' },
};
