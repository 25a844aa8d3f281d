import type { ChainableCommander } from 'ioredis';
import type { RedisConnection } from './connection.js';
import { groupOf } from './slots.js';
import type { RedisClient } from './topology.js';

export interface Reader {
  client: RedisClient;
  connection: RedisConnection;
  sharded: boolean;
}

/** One read per key: a pipeline per slot group (a Cluster pipeline stays on one node), all sent at once. */
export async function readEach<T>(
  { client, connection, sharded }: Reader,
  keys: string[],
  read: (pipeline: ChainableCommander, key: string, i: number) => unknown,
): Promise<T[]> {
  const groups = new Map<string, number[]>();
  keys.forEach((key, i) => {
    const group = groupOf(key, sharded);
    const at = groups.get(group);
    if (at === undefined) groups.set(group, [i]);
    else at.push(i);
  });
  const replies: T[] = [];
  await Promise.all(
    [...groups.values()].map(async (at) => {
      const pipeline = client.pipeline();
      for (const i of at) read(pipeline, keys[i] as string, i);
      const out = await connection.exec(pipeline);
      at.forEach((i, j) => (replies[i] = out[j] as T));
    }),
  );
  return replies;
}
