/**
 * The Node.js flags every toolgate process runs with. `npm start`, the
 * image's entry point and the `toolgate` command's first line each spell them
 * out (test/unit/node-flags.test.ts holds the three to this list), and the
 * bench starts every target, the floor included, with them.
 *
 * `--min-semi-space-size=16`: V8's young generation starts small and grows
 * only as objects survive it. A gateway under load while it is small
 * promotes its in-flight requests to the old generation, and the process
 * then stays slower for its lifetime: twice the old space, mark-compacts
 * under load, scavenges that cost 2-3 × as much. Started at its full 16 MiB
 * it never does (docs/performance.md, "The young generation"). Node refuses
 * this flag in NODE_OPTIONS, hence the command lines.
 */
export const NODE_FLAGS = ['--min-semi-space-size=16'] as const;
