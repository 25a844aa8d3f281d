import { SentinelTopology } from '../../helpers/redis-topologies.js';
import { describeTopology } from './describe-topology.js';

/** A primary, its replica and three sentinels; the primary SIGKILLed, the sentinels promote the replica. */
describeTopology<SentinelTopology>('Sentinel', {
  start: () => SentinelTopology.start(),
  redis: (topology) => ({ sentinels: topology.sentinels, name: topology.name }),
  env: (topology) => ({
    REDIS_SENTINELS: topology.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
    REDIS_SENTINEL_NAME: topology.name,
  }),
  async killPrimary(topology) {
    const old = await topology.killPrimary();
    return { failedOver: topology.promoted(old).then(() => performance.now()) };
  },
});
