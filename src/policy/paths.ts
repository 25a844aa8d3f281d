import type { RE2JS } from 're2js';
import { RANK, type Decision } from './decision.js';
import { matchesEveryExtension, pathShape, type PathShape } from './path-shape.js';
import { compilePolicyPattern } from './pattern.js';
import type { PolicyRuleSpec } from './policy.js';
import { toolNameMatcher } from './reach.js';

/** The built-in tools that read or list files: a rule on a path for one of them is a rule for reading that path. */
const READING_TOOLS: readonly string[] = ['Read', 'Grep', 'Glob', 'LS'];
/** The built-in tools that write files: a rule on a path for one of them is a rule for writing it. */
const WRITING_TOOLS: readonly string[] = ['Write', 'Edit'];

/** What withholds an entry: ask or deny; allow never lifts another rule's decision. */
type Withholding = Exclude<Decision, 'allow'>;

/** One rule with a `when` on `path` that asks or denies. */
interface PathRule {
  index: number;
  decision: Withholding;
  path: RE2JS;
  /** The rule's other arguments: it decides only calls of its own tools, which have them. */
  others: Array<{ arg: string; re: RE2JS }>;
  matchesTool: (name: string) => boolean;
  reads: boolean;
  writes: boolean;
  shape: PathShape;
}

/** Judges the workspace-relative path of one entry of a walk: allow (read and name it), ask or deny (withhold it). */
type EntryJudge = (path: string) => Decision;

/** What the sandbox needs to know of one rule. */
interface SandboxRule {
  index: number;
  decision: Withholding;
  access: 'read' | 'write';
  shape: PathShape;
}

/**
 * The policy's rules on paths, for the places a path is touched without a
 * call naming it: the entries a walker lists or reads, and the mounts of the
 * sandbox. "For reading" are the rules on `path` of a tool that reads or
 * lists (Read, Grep, Glob, LS, or a glob such as `*` matching one); "for
 * writing" those of Write and Edit. See docs/policy.md.
 */
export interface PathRules {
  /** Whether some rule could withhold an entry from a walk at all; when not, walkers check nothing. */
  readonly withholds: boolean;
  /**
   * The judge of the entries one walk by `tool` (called with `args`) meets
   * below its root, whose spellings the permission gate judged are `roots`;
   * undefined when no rule could withhold one. The walk's own tool's rules
   * are tested with its arguments; the other reading tools' rules when they
   * look at `path` alone. A rule that made the walk itself ASK (it matches the
   * root) was approved with it, and withholds nothing below it.
   */
  entryJudge(tool: string, args: Record<string, unknown>, roots: readonly string[]): EntryJudge | undefined;
  /** The decision of the rules for reading (`path` alone) on `path`. */
  reading(path: string): Decision;
  /** The decision of the rules for writing (`path` alone) on `path`. */
  writing(path: string): Decision;
  /** Whether every path below the directory `dir` (workspace-relative, `.` the root) is withheld for that access. */
  everyPathBelow(access: 'read' | 'write', dir: string): boolean;
  /** The rules the sandbox turns into mounts, with what their patterns say. */
  readonly sandboxRules: readonly SandboxRule[];
}

export function createPathRules(rules: readonly PolicyRuleSpec[]): PathRules {
  const compiled: PathRule[] = [];
  rules.forEach((rule, index) => {
    const pattern = rule.when?.path;
    if (pattern === undefined || rule.decision === 'allow') return;
    const matchesTool = toolNameMatcher(rule.tool);
    // Not `.some(matchesTool)`: picomatch's matcher takes a second argument, and would get the index.
    const reads = READING_TOOLS.some((name) => matchesTool(name));
    const writes = WRITING_TOOLS.some((name) => matchesTool(name));
    if (!reads && !writes) return;
    const path = compilePolicyPattern(pattern);
    const others = Object.entries(rule.when!)
      .filter(([arg]) => arg !== 'path')
      .map(([arg, re]) => ({ arg, re: compilePolicyPattern(re) }));
    compiled.push({ index, decision: rule.decision, path, others, matchesTool, reads, writes, shape: pathShape(path) });
  });
  const onPathAlone = (access: 'read' | 'write') =>
    compiled.filter((rule) => rule.others.length === 0 && (access === 'read' ? rule.reads : rule.writes));
  const forReading = onPathAlone('read');
  const forWriting = onPathAlone('write');
  const decide = (on: readonly PathRule[], path: string): Decision => {
    let decision: Decision = 'allow';
    for (const rule of on) {
      if (RANK[rule.decision] > RANK[decision] && rule.path.test(path)) decision = rule.decision;
    }
    return decision;
  };
  /** `args` with `path`: the rule's other arguments as the gate tests them (a non-string one cannot be classified: deny). */
  const holds = (rule: PathRule, path: string, args: Record<string, unknown>): Decision | undefined => {
    if (!rule.path.test(path)) return undefined;
    for (const { arg, re } of rule.others) {
      const value = args[arg];
      if (value === undefined) return undefined;
      if (typeof value !== 'string') return 'deny';
      if (!re.test(value)) return undefined;
    }
    return rule.decision;
  };
  return {
    withholds: compiled.some((rule) => rule.reads),
    entryJudge(tool, args, roots) {
      const own = compiled.filter((rule) => rule.matchesTool(tool));
      const applying = [...own, ...forReading.filter((rule) => !own.includes(rule))].filter(
        (rule) => !(rule.decision === 'ask' && roots.some((root) => holds(rule, root, args) === 'ask')),
      );
      if (applying.length === 0) return undefined;
      // Deny first: the first deny found decides; an ask waits for one.
      applying.sort((a, b) => RANK[b.decision] - RANK[a.decision]);
      return (path) => {
        let decision: Decision = 'allow';
        for (const rule of applying) {
          if (RANK[rule.decision] <= RANK[decision]) continue;
          const held = holds(rule, path, own.includes(rule) ? args : {});
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
    sandboxRules: [
      ...forReading.map((rule): SandboxRule => ({ index: rule.index, decision: rule.decision, access: 'read', shape: rule.shape })),
      ...forWriting.map((rule): SandboxRule => ({ index: rule.index, decision: rule.decision, access: 'write', shape: rule.shape })),
    ],
  };
}
