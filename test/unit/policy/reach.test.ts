import { describe, expect, it } from 'vitest';
import { unreachableRules, type ToolShape } from '../../../src/policy/index.js';

const schema = (...names: string[]) => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) });
const TOOLS: ToolShape[] = [
  { name: 'Read', parameters: schema('path', 'offset') },
  { name: 'Write', parameters: schema('path', 'content') },
  { name: 'get_weather', parameters: schema('city') },
  { name: 'get_time', parameters: schema('zone') },
];

describe('a policy rule that can never match stops start-up (a typo in a deny rule must not silently allow)', () => {
  it('accepts rules on tool names and globs that match, on arguments a matched tool declares', () => {
    expect(
      unreachableRules(
        [
          { tool: 'Write', when: { path: '\\.env$' }, decision: 'deny' },
          { tool: 'get_*', decision: 'allow' },
          { tool: '*', when: { path: '^infra/' }, decision: 'ask' },
          { tool: 'get_*', when: { city: '^Paris$' }, decision: 'deny' },
        ],
        TOOLS,
      ),
    ).toEqual([]);
  });

  it('refuses a tool name that is no tool and a glob that matches none, naming the tools there are', () => {
    expect(
      unreachableRules(
        [
          { tool: 'Wirte', decision: 'deny' },
          { tool: 'put_*', decision: 'deny' },
        ],
        TOOLS,
      ),
    ).toEqual([
      'policy.rules.0.tool: "Wirte" names no tool and matches none as a glob; use one of Read, Write, get_weather, get_time, or remove the rule',
      'policy.rules.1.tool: "put_*" names no tool and matches none as a glob; use one of Read, Write, get_weather, get_time, or remove the rule',
    ]);
  });

  it("refuses an argument the tool's schema does not declare, naming the ones it does", () => {
    expect(unreachableRules([{ tool: 'Write', when: { pth: 'x', content: 'y' }, decision: 'deny' }], TOOLS)).toEqual([
      'policy.rules.0.when.pth: Write has no argument "pth"; use one of its arguments (path, content)',
    ]);
  });

  it('for a glob, refuses an argument no matched tool declares, and arguments no single matched tool has together', () => {
    expect(
      unreachableRules(
        [
          { tool: 'get_*', when: { path: 'x' }, decision: 'deny' },
          { tool: 'get_*', when: { city: 'x', zone: 'y' }, decision: 'deny' },
        ],
        TOOLS,
      ),
    ).toEqual([
      'policy.rules.0.when.path: no tool matching "get_*" (get_weather, get_time) has an argument "path"; use one of theirs (city, zone)',
      'policy.rules.1.when: no tool matching "get_*" (get_weather, get_time) has all of the arguments city, zone; split the rule, one per tool',
    ]);
  });

  it('skips what it cannot judge: rules of the wrong shape (the schema reports them), arguments of a tool whose schema is unknown', () => {
    const broken: ToolShape = { name: 'lookup', parameters: 'not a schema' };
    expect(
      unreachableRules([null, { tool: 5 }, { when: { a: 'b' } }, { tool: 'lookup', when: { anything: 'x' }, decision: 'deny' }], [broken]),
    ).toEqual([]);
  });

  it('keeps the index of the rule as written', () => {
    expect(unreachableRules([{ tool: 'Read', decision: 'deny' }, 'junk', { tool: 'Nope', decision: 'deny' }], TOOLS)).toEqual([
      expect.stringMatching(/^policy\.rules\.2\.tool: "Nope"/),
    ]);
  });
});
