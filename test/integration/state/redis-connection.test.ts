import type { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { RedisConnection } from '../../../src/state/redis/connection.js';

const url = inject('redisUrl');

describe('RedisConnection', () => {
  it('sends the commands of one event-loop turn in one socket write, each answered on its own', async () => {
    const connection = new RedisConnection({ url });
    try {
      const client = connection.client as Redis;
      await connection.run(() => client.ping());
      let writes = 0;
      const write = client.stream.write.bind(client.stream) as (...args: unknown[]) => boolean;
      client.stream.write = ((...args: unknown[]) => {
        writes += 1;
        return write(...args);
      }) as typeof client.stream.write;
      // As the admits of concurrent requests arrive: many commands in the same turn.
      const replies = await Promise.all(Array.from({ length: 32 }, (_, i) => connection.run(() => client.echo(`m${i}`))));
      expect(replies).toEqual(Array.from({ length: 32 }, (_, i) => `m${i}`));
      expect(writes).toBe(1);
    } finally {
      await connection.close();
    }
  });
});
