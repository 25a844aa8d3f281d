import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../../src/tools/openapi/document.js';
import { routeIdOf, toolNamesOf } from '../../../../src/tools/openapi/naming.js';
import { sha256Hex } from '../../../../src/protocol/canonical.js';

const op = (method: Operation['method'], path: string, operationId?: string): Operation => ({ method, path, parameters: [], ...(operationId && { operationId }) });

describe('an operation without operationId is named from its method and path', () => {
  it.each([
    ['get', '/users/{id}/repos', 'get_users_id_repos'],
    ['post', '/', 'post'],
    ['delete', '/tags/{resourceArn}#tagKeys', 'delete_tags_resourceArn_tagKeys'],
    ['get', '/v1/files.list', 'get_v1_files_list'],
  ] as const)('%s %s → %s', (method, path, name) => {
    expect(routeIdOf({ method, path })).toBe(name);
  });

  it('a clash with another operation of the source gives every generated one 8 hex of the SHA-256 of "METHOD path"; operationIds keep theirs', () => {
    const ops = [op('get', '/a/{b}'), op('get', '/a/b'), op('get', '/c', 'get_a_b'), op('get', '/d')];
    const hash = (s: string) => sha256Hex(s).slice(0, 8);
    expect(toolNamesOf('p_', ops)).toEqual([`p_get_a_b_${hash('GET /a/{b}')}`, `p_get_a_b_${hash('GET /a/b')}`, 'p_get_a_b', 'p_get_d']);
    // The order of the operations does not change a name.
    expect(toolNamesOf('p_', [...ops].reverse())).toEqual(toolNamesOf('p_', ops).reverse());
  });

  it('a long path stays within 64 characters and provider-valid', () => {
    const [name] = toolNamesOf('prefix_', [op('get', `/${'segment/'.repeat(12)}{id}`)]);
    expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(name).toHaveLength(64);
  });
});
