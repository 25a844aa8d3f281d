import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../../', import.meta.url).pathname;

/** Debian's docker-compose (1.29) validates a file against the compose schema without an engine. */
function composeConfig(file = 'docker-compose.yml'): { status: number | null; output: string } {
  const env = { ...process.env };
  // Validation needs no engine: a DOCKER_HOST pointing somewhere must not be consulted.
  delete env.DOCKER_HOST;
  const run = spawnSync('docker-compose', ['-f', file, 'config'], { cwd: root, env, encoding: 'utf8' });
  if (run.error)
    throw new Error(`docker-compose not found: apt-get install docker-compose (.ci/run does it when missing): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('docker-compose.yml, validated by a compose implementation', () => {
  it('docker-compose config accepts it, and every service it resolves runs a pinned image or the repository build', () => {
    const { status, output } = composeConfig();
    expect(status, output).toBe(0);
    const services = parse(output).services as Record<string, { image?: string; build?: { dockerfile: string } }>;
    for (const [name, service] of Object.entries(services)) {
      if (service.build) expect(service.build.dockerfile, name).toBe('docker/Dockerfile');
      else expect(service.image, name).toMatch(/:(v?\d+\.\d+\.\d+(-[\w.]+)?|RELEASE\.[\w-]+)$/);
    }
  });

  it('the check can fail: docker-compose refuses a file with an unknown service key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-compose-'));
    try {
      const broken = (await readFile(`${root}docker-compose.yml`, 'utf8')).replace('  lb:\n', '  lb:\n    restart_polciy: always\n');
      await writeFile(join(dir, 'docker-compose.yml'), broken);
      const { status, output } = composeConfig(join(dir, 'docker-compose.yml'));
      expect(status).not.toBe(0);
      expect(output).toContain('restart_polciy');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
