import { RedisKeys } from '../../../src/state/redis/index.js';
import { ClusterTopology } from '../../helpers/redis-cluster.js';
import { describeTopology } from './describe-topology.js';
import { loadKeys } from './under-load.js';

/** The slots of the gateway's queue and of the state the load needs (its tenant's, the shared breakers'). */
const slotsOf = (prefix: string) => [loadKeys(prefix).tenant, loadKeys(prefix).breakers, new RedisKeys(prefix).queuePrefix()];

/**
 * Three masters with a replica each. The state is spread over slots by tenant, so the master
 * SIGKILLed is the one that owns the load's slots: a prefix is picked whose tenant, shared-breaker and
 * queue slots share one master, and that master's replica takes over all three.
 */
describeTopology<ClusterTopology>('Cluster', {
  start: () => ClusterTopology.start(),
  // Two of the six nodes: the client learns the others from them.
  redis: (topology) => ({ cluster_nodes: topology.nodes.slice(0, 2) }),
  env: (topology) => ({ REDIS_CLUSTER_NODES: topology.nodes.map((n) => `${n.host}:${n.port}`).join(',') }),
  prefix: (topology) => topology.prefixWhere('async', slotsOf, (owners) => new Set(owners).size === 1),
  async killPrimary(topology, prefix) {
    const slots = slotsOf(prefix);
    const old = await topology.killOwnerOf(slots[0]!);
    return { failedOver: Promise.all(slots.map((key) => topology.failedOver(key, old))).then(() => performance.now()) };
  },
});
