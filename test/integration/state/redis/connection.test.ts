import type { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { RedisConnection } from '../../../../src/state/redis/connection.js';
import { countSocketWrites } from '../../../helpers/redis.js';

const url = inject('redisUrl');

/** A connected RedisConnection, its client, and the count of its socket's writes from then on; closed after `test`. */
async function withConnection(
  test: (connection: RedisConnection, client: Redis, writes: { count: number }) => Promise<void>,
): Promise<void> {
  const connection = new RedisConnection({ url });
  try {
    const client = connection.client as Redis;
    await connection.run(() => client.ping());
    await test(connection, client, countSocketWrites(client));
  } finally {
    await connection.close();
  }
}

describe('RedisConnection', () => {
  it('sends the commands of one event-loop turn in one socket write, each answered on its own', () =>
    withConnection(async (connection, client, writes) => {
      // As the admits of concurrent requests arrive: many commands in the same turn.
      const replies = await Promise.all(Array.from({ length: 32 }, (_, i) => connection.run(() => client.echo(`m${i}`))));
      expect(replies).toEqual(Array.from({ length: 32 }, (_, i) => `m${i}`));
      expect(writes.count).toBe(1);
      // A failed command fails alone; the others of its turn are answered.
      const mixed = await Promise.allSettled([
        connection.run(() => client.echo('before')),
        connection.run(() => client.call('no-such-command')),
        connection.run(() => client.echo('after')),
      ]);
      expect(mixed.map((m) => m.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(writes.count).toBe(2);
    }));

  it('does not hold a turn behind the round trip of the one before', () =>
    withConnection(async (connection, client, writes) => {
      // A command of a later turn leaves before the earlier turn's answer is in:
      // the earlier one blocks in Redis for 200 ms on a list nobody fills.
      const blocked = connection.run(() => client.blpop(`connection-test-${Date.now()}`, 0.2));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes.count).toBe(1);
      const second = connection.run(() => client.echo('later'));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes.count).toBe(2);
      expect(await blocked).toBeNull();
      expect(await second).toBe('later');
    }));
});
