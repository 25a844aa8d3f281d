import { describe, expect, it } from 'vitest';
import { appendQuery, compileUrlTemplate } from '../../../../src/tools/http/template.js';

describe('compileUrlTemplate: start-up checks', () => {
  it('keeps the origin fixed and lists the placeholders', () => {
    const t = compileUrlTemplate('https://API.example.com:8443/v1/{org}/repos?sort={sort}');
    expect(t.origin).toBe('https://api.example.com:8443');
    expect([...t.placeholders]).toEqual(['org', 'sort']);
    expect(t.expand({ org: 'a/b', sort: 'x y' })).toBe('/v1/a%2Fb/repos?sort=x%20y');
  });

  it('a template with no path gets "/"', () => {
    expect(compileUrlTemplate('https://example.com').expand({})).toBe('/');
    expect(compileUrlTemplate('https://example.com?q={q}').expand({ q: 'a' })).toBe('/?q=a');
  });

  it.each([
    ['https://{host}/x', /host or port/],
    ['https://api.example.com:{port}/x', /host or port/],
    ['https://{sub}.example.com/x', /host or port/],
    ['{scheme}://example.com/x', /http:\/\/ or https:\/\//],
    ['ftp://example.com/x', /http:\/\/ or https:\/\//],
    ['file:///etc/passwd', /http:\/\/ or https:\/\//],
    ['/relative/{x}', /http:\/\/ or https:\/\//],
    ['https://user:pw@example.com/', /credentials/],
    ['https://example.com/x#frag', /fragment/],
    ['https://example.com/a b', /percent-encoded/],
    ['https://example.com/{a-b}', /stray brace/],
    ['https://exa mple.com/', /not a valid host/],
  ])('refuses %s', (template, message) => {
    expect(() => compileUrlTemplate(template)).toThrow(message);
  });
});

describe('expand: argument values can never change the path or query structure', () => {
  const t = compileUrlTemplate('https://example.com/files/{name}?v={v}');

  it.each([
    ['../../etc/passwd', '..%2F..%2Fetc%2Fpasswd'],
    ['?admin=1', '%3Fadmin%3D1'],
    ['#top', '%23top'],
    ['a b', 'a%20b'],
    ['日本語', '%E6%97%A5%E6%9C%AC%E8%AA%9E'],
    ['%2e%2e', '%252e%252e'],
    ['\\..\\', '%5C..%5C'],
    [';', '%3B'],
    ['..x;', '..x%3B'],
  ])('%j', (value, encoded) => {
    expect(t.expand({ name: value, v: value })).toBe(`/files/${encoded}?v=${encoded}`);
  });

  it.each(['', '.', '..', '..;', '.;jsessionid=1'])('refuses %j as a whole path segment (a `;` after the dots too)', (value) => {
    expect(() => t.expand({ name: value, v: 'x' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGS' }));
  });

  it('allows "", "." and ".." in the query, where they are only text', () => {
    expect(t.expand({ name: 'n', v: '..' })).toBe('/files/n?v=..');
    expect(t.expand({ name: 'n', v: '' })).toBe('/files/n?v=');
  });

  it('objects fill a placeholder as JSON', () => {
    expect(t.expand({ name: 'n', v: { a: [1] } })).toBe('/files/n?v=%7B%22a%22%3A%5B1%5D%7D');
  });

  it('names the missing argument', () => {
    expect(() => t.expand({ v: 'x' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGS', details: { errors: [{ path: '/name', message: 'is required by the URL' }] } }),
    );
  });
});

describe('appendQuery', () => {
  it('joins with the right separator', () => {
    expect(appendQuery('/a', { x: 1 })).toBe('/a?x=1');
    expect(appendQuery('/a?y=2', { x: 1 })).toBe('/a?y=2&x=1');
    expect(appendQuery('/a?', { x: 1 })).toBe('/a?x=1');
    expect(appendQuery('/a?y=2&', { x: 1 })).toBe('/a?y=2&x=1');
    expect(appendQuery('/a', {})).toBe('/a');
  });

  it('encodes keys and values, repeats arrays, leaves out null', () => {
    expect(appendQuery('/a', { 'k&=': 'v&=#', list: ['1', 2, null], none: null, flag: true })).toBe(
      '/a?k%26%3D=v%26%3D%23&list=1&list=2&flag=true',
    );
  });
});
