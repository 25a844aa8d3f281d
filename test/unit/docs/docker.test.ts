import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config/load.js';
import { NODE_FLAGS } from '../../../src/node-flags.js';

const root = new URL('../../../', import.meta.url);

/** No Docker engine runs where the tests run, so this pins what can be checked without one. */
describe('docker-compose stack', () => {
  it('builds from docker/Dockerfile, shares one Redis, and publishes on loopback only', async () => {
    const compose = parse(await readFile(new URL('docker-compose.yml', root), 'utf8'), { merge: true });
    const gateways = Object.entries(compose.services as Record<string, any>).filter(([name]) => name.startsWith('toolgate'));
    expect(gateways.length).toBeGreaterThanOrEqual(2);
    for (const [, service] of gateways) {
      expect(service.build.dockerfile).toBe('docker/Dockerfile');
      expect(service.environment.REDIS_URL).toBe('redis://redis:6379');
      for (const port of service.ports as string[]) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
    await stat(new URL('docker/Dockerfile', root));
  });

  it('spills to a MinIO bucket the stack creates at start-up, on pinned images', async () => {
    const compose = parse(await readFile(new URL('docker-compose.yml', root), 'utf8'), { merge: true });
    const services = compose.services as Record<string, any>;
    for (const service of Object.values(services)) if (service.image) expect(service.image).toMatch(/:(?!latest$)[\w.-]+$/);
    expect(services.minio.image).toMatch(/^minio\/minio:RELEASE\./);
    const init = String(services['minio-init'].command);
    for (const [name, service] of Object.entries(services).filter(([n]) => n.startsWith('toolgate'))) {
      const env = service.environment as Record<string, string>;
      const bucket = /^s3:\/\/([^/]+)\//.exec(env.TOOLGATE_SPILL_URL ?? '')?.[1];
      expect(bucket, name).toBeDefined();
      expect(init).toContain(`mc mb --ignore-existing local/${bucket}`);
      expect(env.S3_ENDPOINT).toBe('http://minio:9000');
      expect([env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY]).toEqual([
        services.minio.environment.MINIO_ROOT_USER,
        services.minio.environment.MINIO_ROOT_PASSWORD,
      ]);
      expect(service.depends_on['minio-init'].condition).toBe('service_completed_successfully');
      expect(loadConfig({ ...env, HOST: '0.0.0.0' }, new URL('docker/config.yaml', root).pathname).spill).toMatchObject({
        url: env.TOOLGATE_SPILL_URL,
        s3_endpoint: env.S3_ENDPOINT,
      });
    }
  });

  it('runs a worker service: the same image and config as the replicas, `toolgate worker`, the same Redis, no port', async () => {
    const compose = parse(await readFile(new URL('docker-compose.yml', root), 'utf8'), { merge: true });
    const worker = compose.services.worker;
    expect(worker.command).toEqual(['worker']);
    expect(worker.build.dockerfile).toBe('docker/Dockerfile');
    expect(worker.environment).toEqual(compose.services['toolgate-a'].environment);
    expect(worker.volumes).toEqual(compose.services['toolgate-a'].volumes);
    expect(worker.ports).toEqual([]);
    // The image's health check asks /readyz, which a worker does not serve.
    expect(worker.healthcheck).toEqual({ disable: true });
    const dockerfile = await readFile(new URL('docker/Dockerfile', root), 'utf8');
    expect(dockerfile).toContain(`ENTRYPOINT ${JSON.stringify(['node', ...NODE_FLAGS, 'dist/cli.js']).replaceAll(',', ', ')}`);
  });

  it('the mounted config file is a valid toolgate config for a container bound to 0.0.0.0', async () => {
    const config = loadConfig({ HOST: '0.0.0.0', REDIS_URL: 'redis://redis:6379' }, new URL('docker/config.yaml', root).pathname);
    expect(config.allow_unauthenticated).toBe(true);
  });

  it('the Dockerfile copies everything the build reads', async () => {
    const dockerfile = await readFile(new URL('docker/Dockerfile', root), 'utf8');
    for (const path of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src']) {
      expect(dockerfile).toMatch(new RegExp(`COPY [^\\n]*\\b${path.replace('.', '\\.')}\\b`));
      await stat(new URL(path, root));
    }
  });
});
