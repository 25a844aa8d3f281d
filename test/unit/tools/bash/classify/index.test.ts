import { describe, expect, it } from 'vitest';
import { bashPermissionHooks } from '../../../../../src/tools/bash/classify/index.js';
import { classifyCommand, MAX_CLASSIFIED_CHARS, MAX_DEPTH } from '../../../../../src/tools/bash/classify/judge.js';
import { TABLE } from '../classify-table.js';

const hooks = bashPermissionHooks();
/** The class the tool hands the gate: the most restrictive part, or `unknown`. */
function classOf(command: string): string {
  const own = hooks.classify!({ command });
  if (typeof own === 'string') return own;
  if ('unknown' in own) return 'unknown';
  const rank = ['allow', 'ask', 'deny'];
  return own.parts.reduce((acc, part) => (rank.indexOf(part.decision) > rank.indexOf(acc) ? part.decision : acc), 'allow');
}

describe('Bash classification: every simple command judged, the most restrictive deciding', () => {
  it('has at least 80 rows of each kind together, and every class', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(80);
    expect(new Set(TABLE.map(([, e]) => e))).toEqual(new Set(['allow', 'ask', 'deny', 'unknown']));
  });

  it.each(TABLE)('%j is %s', (command, expected) => {
    expect(classOf(command)).toBe(expected);
  });

  it('the parse canonicalArgs made of a call is what classify judges, and a command changed since is parsed again', async () => {
    const args: Record<string, unknown> = { command: "'r''m' -rf src" };
    expect(await hooks.canonicalArgs!(args)).toEqual([{ command: 'rm -rf src' }]);
    expect(hooks.classify!(args)).toMatchObject({ parts: [{ decision: 'deny' }] });
    args.command = 'ls src';
    expect(hooks.classify!(args)).toMatchObject({ parts: [{ args: { command: 'ls src' }, decision: 'allow' }] });
    expect(await hooks.canonicalArgs!(args)).toEqual([{ command: 'ls src' }]);
  });

  it(`a command whose syntax tree nests deeper than ${MAX_DEPTH} is unknown, not a crash`, () => {
    // Each `echo $(` is four levels: statement, call, word, substitution.
    expect(classOf(`${'echo $('.repeat(60)}ls${')'.repeat(60)}`)).toBe('allow');
    expect(classOf(`${'echo $('.repeat(70)}ls${')'.repeat(70)}`)).toBe('unknown');
    expect(classOf(`${'echo $('.repeat(1400)}ls${')'.repeat(1400)}`)).toBe('unknown');
  });

  it(`a command longer than ${MAX_CLASSIFIED_CHARS} characters is unknown: the classifier's time is bounded`, () => {
    const at = `echo ${'x'.repeat(MAX_CLASSIFIED_CHARS - 5)}`;
    expect(classOf(at)).toBe('allow');
    expect(classOf(`${at}y`)).toBe('unknown');
  });

  it("an unclassified command says why: the parser's message, the length, the depth", () => {
    expect(hooks.classify!({ command: 'echo $(' })).toEqual({
      unknown: 'bash cannot parse the command: 1:6: reached EOF without matching ( with )',
    });
    expect(hooks.classify!({ command: 'x'.repeat(MAX_CLASSIFIED_CHARS + 1) })).toEqual({
      unknown: `the command is ${MAX_CLASSIFIED_CHARS + 1} characters long, over the ${MAX_CLASSIFIED_CHARS} the classifier reads`,
    });
    // Past the walk's bound, and (3,000 levels) past what the parser's own recursion survives.
    for (const command of [`${'echo $('.repeat(70)}ls${')'.repeat(70)}`, `${'$('.repeat(3000)}ls${')'.repeat(3000)}`]) {
      expect(hooks.classify!({ command })).toEqual({
        unknown: `the command nests deeper than the ${MAX_DEPTH} levels the classifier reads`,
      });
    }
  });

  it('a command argument that is not a string cannot be classified', () => {
    expect(hooks.classify!({ command: 42 })).toBe('unknown');
    expect(hooks.classify!({})).toBe('unknown');
  });
});

describe('the canonical spelling: quotes and escapes removed, one space between words', () => {
  it.each([
    ["'r''m' -rf /", 'rm -rf /'],
    ['\\rm  -rf   /', 'rm -rf /'],
    ["$'\\x6e\\x70\\x6d' test", 'npm test'],
    ['"git"  push   --force', 'git push --force'],
    ['ls  "a b"', "ls 'a b'"],
    ["echo 'it'\\''s'", "echo 'it'\\''s'"],
    ['npm test && "git" push', 'npm test && git push'],
    ["'a=b' x", "'a=b' x"],
    ["'if' x; \\time ls", "'if' x; 'time' ls"],
  ])('%j is %j', async (command, canonical) => {
    expect(await hooks.canonicalArgs!({ command, timeout_ms: 5 })).toEqual([{ command: canonical, timeout_ms: 5 }]);
  });

  it('the canonical spelling classifies as the command does, and spells itself', () => {
    for (const [command, expected] of TABLE) {
      const classified = classifyCommand(command);
      if (expected === 'unknown') {
        expect(classified).toHaveProperty('problem');
        continue;
      }
      if (!('canonical' in classified)) throw new Error(`${command}: ${classified.problem}`);
      expect(classOf(classified.canonical)).toBe(expected);
      expect(classifyCommand(classified.canonical)).toHaveProperty('canonical', classified.canonical);
    }
  });

  it('a command that does not parse has no canonical spelling', async () => {
    expect(await hooks.canonicalArgs!({ command: 'echo $(' })).toEqual([]);
  });

  it('each part names its simple command for the rules, nested ones too', () => {
    const own = hooks.classify!({ command: 'npm test && echo "$(git push)" > /dev/null' });
    expect(typeof own === 'object' && 'parts' in own && own.parts.map((p) => [p.args.command, p.decision])).toEqual([
      ['npm test', 'ask'],
      ['echo "$(git push)" >/dev/null', 'allow'],
      ['git push', 'ask'],
    ]);
  });
});
