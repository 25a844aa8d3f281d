import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/config/schema.js';

const PAGE = new URL('../../../docs/configuration.md', import.meta.url);

interface Node {
  type?: string;
  properties?: Record<string, Node>;
  patternProperties?: Record<string, Node>;
  additionalProperties?: unknown;
  items?: Node;
  default?: unknown;
}

const hasKeys = (node: Node | undefined) => node?.type === 'object' && node.properties !== undefined && node.additionalProperties !== true;

/**
 * Every settable key of the schema, as the page writes it: `a.b` for nested objects, `a[].b` for
 * the entries of a list, `a.<name>.b` for a map whose keys the user names (next to its fixed keys, if any). A JSON Schema the
 * user writes (an open object) and a map of plain values are one key.
 */
function leaves(node: Node, path: string, out: Map<string, Node>): Map<string, Node> {
  const values = node.patternProperties && Object.values(node.patternProperties)[0];
  // An object with named keys and a schema for any other key (builtins: Bash, then every other built-in by name).
  const others = typeof node.additionalProperties === 'object' ? (node.additionalProperties as Node) : undefined;
  if (hasKeys(node)) {
    for (const [key, child] of Object.entries(node.properties!)) leaves(child, path ? `${path}.${key}` : key, out);
    if (hasKeys(others)) leaves(others!, `${path}.<name>`, out);
  } else if (node.type === 'array' && hasKeys(node.items)) leaves(node.items!, `${path}[]`, out);
  else if (hasKeys(values)) leaves(values!, `${path}.<name>`, out);
  else out.set(path, node);
  return out;
}

/** The rows of the page's key table: | `key` | default | accepts | meaning | */
async function documented(): Promise<Map<string, string>> {
  const section = (await readFile(PAGE, 'utf8')).split('<!-- config-keys:start -->')[1]?.split('<!-- config-keys:end -->')[0];
  if (!section) throw new Error('docs/configuration.md has no key table between its markers');
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const match = /^\|\s*`([^`]+)`\s*\|([^|]*)\|/.exec(line);
    if (match) rows.set(match[1]!, match[2]!.trim());
  }
  return rows;
}

/** The configuration page and src/config/schema.ts describe the same keys. */
describe('docs/configuration.md', () => {
  it('documents every key of the config schema, and no key the schema lacks', async () => {
    const schema = [...leaves(ConfigSchema as Node, '', new Map()).keys()].sort();
    expect([...(await documented()).keys()].sort()).toEqual(schema);
  });

  it('states the default the schema fills in, for every key that has one', async () => {
    const rows = await documented();
    for (const [key, node] of leaves(ConfigSchema as Node, '', new Map())) {
      if (node.default === undefined) continue;
      const stated = /^`([^`]*)`/.exec(rows.get(key) ?? '')?.[1];
      expect(stated, key).toBe(typeof node.default === 'string' ? node.default : JSON.stringify(node.default));
    }
  });
});
