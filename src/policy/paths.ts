import type { RE2JS } from 're2js';
import { RANK, type Decision } from './decision.js';
import { matchesEveryExtension, pathShape, type PathShape } from './path-shape.js';
import { testRule, type CompiledRule } from './rules.js';

/** A rule on `path` of one of these tools is a rule for reading that path; of WRITING_TOOLS, for writing it. */
const READING_TOOLS: readonly string[] = ['Read', 'Grep', 'Glob', 'LS'];
const WRITING_TOOLS: readonly string[] = ['Write', 'Edit'];

/** Allow never lifts another rule's decision, so only ask and deny withhold. */
type Withholding = Exclude<Decision, 'allow'>;

interface PathRule {
  rule: CompiledRule;
  decision: Withholding;
  path: RE2JS;
  /** The rule also tests another argument: it decides only calls of its own tools. */
  others: boolean;
  reads: boolean;
  writes: boolean;
  shape: PathShape;
  pattern: string;
}

type EntryJudge = (path: string) => Decision;

interface SandboxRule {
  index: number;
  /** The `path` pattern as written. */
  pattern: string;
  decision: Withholding;
  access: 'read' | 'write';
  shape: PathShape;
}

/** The policy's questions on paths no call names: a walker's entries, the none tier's paths, the mounts (docs/policy.md). */
export interface PathRules {
  /** Whether some rule could withhold an entry from a walk at all. */
  readonly withholds: boolean;
  /**
   * The judge of the entries a walk by `tool` meets below `roots` (its root's
   * spellings); undefined when no rule could withhold one. The walk's own
   * tool's rules see `args`; a rule that made the walk ASK was approved with it.
   */
  entryJudge(tool: string, args: Record<string, unknown>, roots: readonly string[]): EntryJudge | undefined;
  reading(path: string): Decision;
  writing(path: string): Decision;
  /** Whether every path below `dir` (`.` the root) is withheld for that access. */
  everyPathBelow(access: 'read' | 'write', dir: string): boolean;
  /** Whether some rule for `access` may match a path below `dir` (`''` the root). Sound, not complete. */
  mayMatchBelow(access: 'read' | 'write', dir: string): boolean;
  /** Whether a rule anchored at the start may name a path through a link below `dir`. */
  anchoredBelow(dir: string): boolean;
  /** The folders anchored rules name by their literal start (`^conf/prod\.yml$`: `conf`), which a link may stand for. */
  readonly linkCandidates: readonly string[];
  readonly sandboxRules: readonly SandboxRule[];
  /** The rules on `path` that also test another argument: the sandbox applies none of them. */
  readonly notMounted: readonly number[];
}

/** Whether a path starting with `prefix` (a pattern's literal start) may lie below `dir`. */
const agrees = (prefix: string, dir: string) => dir === '' || prefix.startsWith(`${dir}/`) || `${dir}/`.startsWith(prefix);

const sandboxRule = ({ rule, decision, shape, pattern }: PathRule) => ({ index: rule.index, decision, shape, pattern });

function pathRule(rule: CompiledRule): PathRule | undefined {
  const path = rule.when.find(({ arg }) => arg === 'path')?.re;
  if (path === undefined || rule.decision === 'allow') return undefined;
  // Not `.some(rule.matchesTool)`: picomatch's matcher takes a second argument, and would get the index.
  const reads = READING_TOOLS.some((name) => rule.matchesTool(name));
  const writes = WRITING_TOOLS.some((name) => rule.matchesTool(name));
  if (!reads && !writes) return undefined;
  return {
    rule,
    decision: rule.decision,
    path,
    others: rule.when.length > 1,
    reads,
    writes,
    shape: pathShape(path),
    pattern: path.pattern(),
  };
}

export function createPathRules(rules: readonly CompiledRule[]): PathRules {
  const compiled = rules.map(pathRule).filter((rule) => rule !== undefined);
  const onPathAlone = (access: 'read' | 'write') =>
    compiled.filter((rule) => !rule.others && (access === 'read' ? rule.reads : rule.writes));
  const forReading = onPathAlone('read');
  const forWriting = onPathAlone('write');
  // `args` is reused: its `path` is set for each test.
  const holds = (rule: PathRule, path: string, args: Record<string, unknown>): Decision | undefined => {
    args.path = path;
    const outcome = testRule(rule.rule, args);
    return outcome === 'match' ? rule.decision : outcome === 'unclassifiable' ? 'deny' : undefined;
  };
  const alone: Record<string, unknown> = {};
  const decide = (on: readonly PathRule[], path: string): Decision => {
    let decision: Decision = 'allow';
    for (const rule of on) if (RANK[rule.decision] > RANK[decision] && holds(rule, path, alone)) decision = rule.decision;
    return decision;
  };
  const sandboxRules = [
    ...forReading.map((rule): SandboxRule => ({ ...sandboxRule(rule), access: 'read' })),
    ...forWriting.map((rule): SandboxRule => ({ ...sandboxRule(rule), access: 'write' })),
  ];
  return {
    withholds: compiled.some((rule) => rule.reads),
    entryJudge(tool, args, roots) {
      const own = compiled.filter((rule) => rule.rule.matchesTool(tool));
      const withArgs = { ...args };
      const applying = [...own, ...forReading.filter((rule) => !own.includes(rule))].filter(
        (rule) => !(rule.decision === 'ask' && roots.some((root) => holds(rule, root, withArgs) === 'ask')),
      );
      if (applying.length === 0) return undefined;
      applying.sort((a, b) => RANK[b.decision] - RANK[a.decision]);
      return (path) => {
        let decision: Decision = 'allow';
        for (const rule of applying) {
          if (RANK[rule.decision] <= RANK[decision]) continue;
          const held = holds(rule, path, own.includes(rule) ? withArgs : alone);
          if (held === 'deny') return 'deny';
          if (held) decision = held;
        }
        return decision;
      };
    },
    reading: (path) => decide(forReading, path),
    writing: (path) => decide(forWriting, path),
    everyPathBelow(access, dir) {
      const below = dir === '.' ? '' : `${dir}/`;
      return (access === 'read' ? forReading : forWriting).some((rule) => matchesEveryExtension(rule.path, below));
    },
    mayMatchBelow: (access, dir) =>
      sandboxRules.some((rule) => rule.access === access && (rule.shape.prefix === undefined || agrees(rule.shape.prefix, dir))),
    anchoredBelow: (dir) => sandboxRules.some((rule) => rule.shape.prefix !== undefined && agrees(rule.shape.prefix, dir)),
    sandboxRules,
    linkCandidates: [
      ...new Set(
        compiled.flatMap(({ shape }) => {
          const segments = shape.prefix?.split('/') ?? [];
          return segments.map((_, i) => segments.slice(0, i + 1).join('/')).filter((dir) => dir !== '' && !dir.endsWith('/'));
        }),
      ),
    ],
    notMounted: compiled.filter((rule) => rule.others).map((rule) => rule.rule.index),
  };
}
