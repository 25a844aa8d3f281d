/**
 * The Node.js flags of every toolgate process (test/unit/node-flags.test.ts holds `npm start`, the image and the
 * `toolgate` command to it). `--min-semi-space-size=16`: a young generation started small promotes in-flight requests
 * under load and the process stays slow for its lifetime (docs/performance-notebook.md, "The young generation"). Node
 * refuses this flag in NODE_OPTIONS, hence the command lines.
 */
export const NODE_FLAGS = ['--min-semi-space-size=16'] as const;
