import { describe, expect, it } from 'vitest';
import { routeOf } from '../../../../src/tools/openapi/route.js';

describe('a path key with a query or fragment: the path before it is sent, its name=value pairs become fixed request parts', () => {
  it.each([
    ['/items/{id}', { path: '/items/{id}', query: [], headers: [] }],
    ['/#X-Amz-Target=AWSGlue.BatchCreatePartition', { path: '/', query: [], headers: [['X-Amz-Target', 'AWSGlue.BatchCreatePartition']] }],
    ['/#Action=AttachInstances&Version=2011-01-01', { path: '/', query: [['Action', 'AttachInstances'], ['Version', '2011-01-01']], headers: [] }],
    ['/rest?method=flickr.photos.search', { path: '/rest', query: [['method', 'flickr.photos.search']], headers: [] }],
    ['/tags/{resourceArn}#tagKeys', { path: '/tags/{resourceArn}', query: [], headers: [] }],
    ['/alerts?lat={lat}&lon={lon}', { path: '/alerts', query: [], headers: [] }],
    ['/tags#operation=tag-resource', { path: '/tags', query: [['operation', 'tag-resource']], headers: [] }],
    ['/x?a=b%20c&d=e+f', { path: '/x', query: [['a', 'b c'], ['d', 'e f']], headers: [] }],
  ])('%s', (key, route) => {
    expect(routeOf(key)).toEqual(route);
  });

  it('text that is not valid percent-encoding is a plain error naming it', () => {
    expect(() => routeOf('/#Action=%E0%A4%A')).toThrow(/its path's query or fragment "%E0%A4%A" is not valid percent-encoding/);
  });
});
