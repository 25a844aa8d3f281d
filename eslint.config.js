import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Which folders of src/ each folder may import: requests flow down
 * http → queue → pipeline → approvals → webhooks → catalog → registry/tools/state/audit/spill → protocol,
 * and config, policy and shared are below everything that reads them. The
 * console is a page and its assets, registered by the app. A folder not
 * listed for another is off limits to it, and so are the entry points
 * (app, server, cli, startup) for every folder.
 */
const LAYERS = {
  shared: [],
  protocol: ['shared'],
  policy: ['shared', 'protocol'],
  guardrails: ['shared', 'protocol', 'policy', 'config'],
  config: ['shared', 'protocol', 'policy'],
  observability: ['shared', 'protocol', 'config'],
  identity: ['shared', 'protocol', 'config', 'observability', 'policy'],
  spill: ['shared', 'protocol', 'config', 'observability'],
  state: ['shared', 'protocol', 'config', 'observability'],
  audit: ['shared', 'protocol', 'config', 'observability', 'spill'],
  vault: ['shared', 'protocol', 'config', 'observability', 'identity', 'state', 'tools'],
  tools: ['shared', 'protocol', 'config', 'observability', 'policy', 'spill', 'guardrails'],
  registry: ['shared', 'protocol', 'config', 'observability', 'policy', 'tools'],
  catalog: ['shared', 'protocol', 'config', 'observability', 'policy', 'tools', 'registry', 'state'],
  webhooks: ['shared', 'protocol', 'config', 'observability', 'tools'],
  approvals: ['shared', 'protocol', 'config', 'observability', 'policy', 'tools', 'webhooks', 'guardrails'],
  pipeline: [
    'shared',
    'protocol',
    'config',
    'observability',
    'policy',
    'spill',
    'state',
    'tools',
    'registry',
    'catalog',
    'approvals',
    'webhooks',
    'audit',
    'guardrails',
  ],
  queue: [
    'shared',
    'protocol',
    'config',
    'observability',
    'policy',
    'spill',
    'state',
    'tools',
    'registry',
    'catalog',
    'pipeline',
    'approvals',
    'webhooks',
    'audit',
    'guardrails',
  ],
  http: [
    'shared',
    'protocol',
    'config',
    'observability',
    'policy',
    'spill',
    'state',
    'tools',
    'registry',
    'catalog',
    'pipeline',
    'queue',
    'approvals',
    'webhooks',
    'audit',
    'guardrails',
    'identity',
    'vault',
  ],
  console: ['shared', 'protocol'],
};
const ENTRY_POINTS = ['app', 'server', 'worker', 'cli', 'startup', 'stop-signals'];

// Every import in src/ is relative, so a file `depth` folders below src/ leaves its own folder with `depth` `../`.
const layerRules = Object.entries(LAYERS).flatMap(([folder, allowed]) => {
  const forbidden = Object.keys(LAYERS).filter((other) => other !== folder && !allowed.includes(other));
  return [1, 2, 3].map((depth) => {
    const up = '\\.\\./'.repeat(depth);
    return {
      files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^${up}(${forbidden.join('|')})(/|$)`,
                message: `src/${folder} may import only from ${allowed.join(', ') || 'nothing else in src'} (see LAYERS in eslint.config.js).`,
              },
              {
                regex: `^${up}(${ENTRY_POINTS.join('|')})\\.js$`,
                message: 'The entry points import the layers, never the other way round.',
              },
            ],
          },
        ],
      },
    };
  });
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'workspace/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  ...layerRules,
  {
    // The console's script runs in the browser, on these of its globals only.
    files: ['src/console/static/**/*.js'],
    languageOptions: {
      globals: { document: 'readonly', fetch: 'readonly', sessionStorage: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
  },
  {
    files: ['scripts/**', 'bench/**', 'examples/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Tests read JSON responses whose shape the assertions themselves check.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
