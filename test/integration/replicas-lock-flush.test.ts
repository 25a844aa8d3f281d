import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/redis-global-setup.js';
import { executeAt, isolated, scratch, startGateway, TEST_MS, until, useGatewayScratch, writeConfig } from './server-harness.js';

/**
 * Rule: no update is lost even when Redis loses the file locks' records
 * (FLUSHALL, a restart empty) while writers hold them. Two real gateway
 * processes on one Redis of their own, flushed every few ms, while agents on
 * both Edit one file on the base they read: every success is in the file,
 * every other answer is CONFLICT. Before the sweep (docs/replicas.md,
 * "Without the store"), a flush between a holder's grant and its rename let
 * the other replica take the lock at once, and both renamed.
 */

useGatewayScratch();

const ROUNDS = 300;
const LANES = 6;

describe('two gateway processes whose Redis is flushed again and again', () => {
  it(
    `${ROUNDS} rounds of concurrent Edits on one base under FLUSHALL: every success is in the file`,
    async () => {
      const port = await freePort();
      const redis = spawn(
        inject('redisBinary') || 'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      const flusher = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
      // Refused connects while redis-server starts are expected; `until` asks again.
      flusher.on('error', () => undefined);
      let flushing = true;
      try {
        await until('redis-server listens', () =>
          flusher.connect().then(
            () => true,
            () => false,
          ),
        );
        const workspace = join(scratch, 'ws');
        await mkdir(workspace);
        const config = await writeConfig('audit: false\n');
        const env = isolated({ REDIS_URL: `redis://127.0.0.1:${port}`, TOOLGATE_CONFIG: config });
        const [a, b] = await Promise.all([startGateway(env).ready, startGateway(env).ready]);
        const agents = [
          { name: 'A', address: a!.address, session: 'agent-a' },
          { name: 'B', address: b!.address, session: 'agent-b' },
        ];
        const flushes = (async () => {
          let n = 0;
          while (flushing) {
            await flusher.flushall();
            n++;
            await new Promise((resolve) => setTimeout(resolve, 3));
          }
          return n;
        })();
        const tally = { success: 0, conflict: 0, lost: 0 };

        async function round(n: number): Promise<void> {
          const path = `lane-${n % LANES}.txt`;
          await writeFile(join(workspace, path), `round ${n}\nA: unchanged\nB: unchanged\n`);
          const reads = await Promise.all(
            agents.map((agent) =>
              executeAt(agent.address, agent.session, [{ id: `r-${n}-${agent.name}`, name: 'Read', arguments: { path } }]),
            ),
          );
          for (const [result] of reads) expect(result!.status).toBe('success');
          const edit = (agent: string) => ({
            id: `e-${n}-${agent}`,
            name: 'Edit',
            arguments: { path, old_string: `${agent}: unchanged`, new_string: `${agent}: edited` },
          });
          const answers = await Promise.all(agents.map((agent) => executeAt(agent.address, agent.session, [edit(agent.name)])));
          const after = await readFile(join(workspace, path), 'utf8');
          answers.forEach(([result], i) => {
            const agent = agents[i]!.name;
            if (result!.status === 'success') {
              tally.success++;
              if (!after.includes(`${agent}: edited`)) tally.lost++;
            } else {
              expect(result!.error?.code, JSON.stringify(result)).toBe('CONFLICT');
              tally.conflict++;
            }
          });
        }

        await Promise.all(
          Array.from({ length: LANES }, async (_, lane) => {
            for (let n = lane; n < ROUNDS; n += LANES) await round(n);
          }),
        );
        flushing = false;
        console.warn(`replica lock under FLUSHALL: ${JSON.stringify(tally)}, ${await flushes} flushes`);
        expect(tally.lost).toBe(0);
        expect(tally.success).toBeGreaterThan(0);
      } finally {
        flushing = false;
        flusher.disconnect();
        redis.kill('SIGKILL');
      }
    },
    2 * TEST_MS,
  );
});
