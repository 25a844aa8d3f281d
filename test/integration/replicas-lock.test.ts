import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { executeAt, isolated, scratch, startGateway, TEST_MS, useGatewayScratch, writeConfig } from './server-harness.js';

/**
 * Rule: the Read→Edit lock holds across replicas that share a
 * workspace. Two real gateway processes on one real Redis and one workspace;
 * in every round two agents, one on each, Read the same fresh file and then
 * change it at the same moment, each on the base it read: nothing is lost —
 * every success is in the file, every other answer is CONFLICT.
 */

useGatewayScratch();

/** Rounds in all (docs/replicas.md gives the count and the result), run as LANES rounds at a time on different files. */
const ROUNDS = 1_000;
const LANES = 16;

describe('two gateway processes sharing a workspace and a Redis', () => {
  it(
    `${ROUNDS} rounds of concurrent Edits and Writes on one base: every success is in the file, every other answer is CONFLICT`,
    async () => {
      const workspace = join(scratch, 'ws');
      await mkdir(workspace);
      // Only what the rounds need, on two busy cores: no audit trail.
      const config = await writeConfig('audit: false\n');
      const env = isolated({ REDIS_URL: inject('redisUrl'), TOOLGATE_REDIS_PREFIX: `lock-${Date.now()}`, TOOLGATE_CONFIG: config });
      const [a, b] = await Promise.all([startGateway(env).ready, startGateway(env).ready]);
      const agents = [
        { name: 'A', address: a!.address, session: 'agent-a' },
        { name: 'B', address: b!.address, session: 'agent-b' },
      ];
      const tally = { success: 0, conflict: 0, lost: 0 };

      async function round(n: number): Promise<void> {
        const path = `lane-${n % LANES}.txt`;
        const base = `round ${n}\nA: unchanged\nB: unchanged\n`;
        await writeFile(join(workspace, path), base);
        // Both read before either writes: each change is made on this base (the gateway injects the stamp each read).
        const reads = await Promise.all(agents.map((agent) => executeAt(agent.address, agent.session, [read(n, agent.name, path)])));
        for (const [result] of reads) expect(result!.status).toBe('success');
        const byWrite = n % 2 === 1;
        const change = (agent: string) =>
          byWrite
            ? { id: `w-${n}-${agent}`, name: 'Write', arguments: { path, content: `round ${n}\nwritten whole by ${agent}\n` } }
            : {
                id: `e-${n}-${agent}`,
                name: 'Edit',
                arguments: { path, old_string: `${agent}: unchanged`, new_string: `${agent}: edited` },
              };
        const answers = await Promise.all(agents.map((agent) => executeAt(agent.address, agent.session, [change(agent.name)])));
        const after = await readFile(join(workspace, path), 'utf8');
        answers.forEach(([result], i) => {
          const agent = agents[i]!.name;
          if (result!.status === 'success') {
            tally.success++;
            const mine = byWrite ? `written whole by ${agent}` : `${agent}: edited`;
            if (!after.includes(mine)) tally.lost++;
          } else {
            expect(result!.error?.code, JSON.stringify(result)).toBe('CONFLICT');
            tally.conflict++;
          }
        });
      }

      const read = (n: number, agent: string, path: string) => ({ id: `r-${n}-${agent}`, name: 'Read', arguments: { path } });
      const started = Date.now();
      await Promise.all(
        Array.from({ length: LANES }, async (_, lane) => {
          for (let n = lane; n < ROUNDS; n += LANES) await round(n);
        }),
      );
      const took = Date.now() - started;
      console.warn(
        `replica lock: ${ROUNDS} rounds in ${took} ms: ${tally.success} successes, ${tally.conflict} CONFLICT, ${tally.lost} lost`,
      );
      expect(tally).toEqual({ success: ROUNDS, conflict: ROUNDS, lost: 0 });
    },
    // The rounds take 30-80 s on two cores shared with other work; the start of two gateways under tsx comes on top.
    2 * TEST_MS,
  );
});
