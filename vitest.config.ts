import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
    // Unit tests need no Redis, so only the integration project starts one: `--project unit` runs without redis-server.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/helpers/redis-global-setup.ts', 'test/helpers/s3-global-setup.ts'],
        },
      },
    ],
  },
});
