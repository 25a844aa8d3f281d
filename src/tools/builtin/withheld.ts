import { stricter, type Decision, type PathRules } from '../../policy/index.js';
import { namesThrough, type LinkNames } from './link-names.js';
import type { Workspace } from '../workspace-types.js';
import { counted } from '../../shared/count.js';

/** `data.withheld` of a walk's result: how many entries the policy kept from it, never which. */
interface WithheldCounts {
  denied: number;
  needs_approval: number;
}

/** Counts the entries a walk withheld; see {@link entryJudge}. */
export class Withheld {
  readonly counts: WithheldCounts = { denied: 0, needs_approval: 0 };

  /** Whether an entry so judged is withheld, counting it when it is. */
  withholds(decision: Decision): boolean {
    if (decision === 'allow') return false;
    if (decision === 'deny') this.counts.denied++;
    else this.counts.needs_approval++;
    return true;
  }

  /** `data` of the result: `{withheld}` when anything was withheld, else undefined (no `data` at all). */
  get data(): { withheld: WithheldCounts } | undefined {
    return this.counts.denied + this.counts.needs_approval > 0 ? { withheld: { ...this.counts } } : undefined;
  }

  /** The note for the model's text, when anything was withheld. */
  get note(): string[] {
    const { denied, needs_approval: asking } = this.counts;
    if (denied + asking === 0) return [];
    const total = denied + asking;
    const parts = [denied > 0 ? `${denied} denied` : '', asking > 0 ? `${asking} needing approval` : ''].filter(Boolean);
    return [`(${counted(total, 'entry', 'entries')} withheld by the permission policy: ${parts.join(', ')})`];
  }
}

/** How one walk judges the entries it meets: see {@link entryJudge}. */
export interface WalkJudge {
  /** An entry by its path relative to the walk's directory. */
  below(rel: string): Decision;
  /** A path of the workspace (where a link in the directory leads). */
  at(path: string): Decision;
}

/**
 * How a walk judges entries below `real` (named `shown`): by workspace path and by the call's spelling when it differs, the stricter
 * winning, as the permission gate does. Undefined when no rule could withhold an entry.
 */
export function entryJudge(
  ws: Workspace,
  paths: PathRules,
  tool: string,
  args: Record<string, unknown>,
  shown: string,
  real: string,
  links: LinkNames,
): WalkJudge | undefined {
  if (!paths.withholds) return undefined;
  const resolved = ws.relative(real);
  const spelled = ws.canonical(shown);
  const judge = paths.entryJudge(tool, args, [...new Set([shown, spelled, resolved, ...namesThrough(links, resolved)])]);
  if (!judge) return undefined;
  const join = (base: string, rel: string) => (base === '.' ? rel : `${base}/${rel}`);
  // A path is judged by every name: its own, through the link the call named, through a link a rule names.
  const at = (path: string) => namesThrough(links, path).reduce<Decision>((decision, name) => stricter(decision, judge(name)), judge(path));
  const below =
    spelled === resolved
      ? (rel: string) => at(join(resolved, rel))
      : (rel: string) => stricter(at(join(resolved, rel)), judge(join(spelled, rel)));
  return { below, at };
}
