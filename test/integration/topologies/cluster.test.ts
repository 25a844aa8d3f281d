import { ClusterTopology } from '../../helpers/redis-topologies.js';
import { describeTopology } from './describe-topology.js';

/** Issue 17: three masters with a replica each; the master of the prefix's slot SIGKILLed, its replica takes over. */
describeTopology<ClusterTopology>('Cluster', {
  start: () => ClusterTopology.start(),
  // Two of the six nodes: the client learns the others from them.
  redis: (topology) => ({ cluster_nodes: topology.nodes.slice(0, 2) }),
  env: (topology) => ({ REDIS_CLUSTER_NODES: topology.nodes.map((n) => `${n.host}:${n.port}`).join(',') }),
  async killPrimary(topology, prefix) {
    const old = await topology.killOwnerOf(`{${prefix}}`);
    return { failedOver: topology.failedOver(`{${prefix}}`, old).then(() => performance.now()) };
  },
});
