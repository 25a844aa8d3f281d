import type { PathRules } from '../../../policy/index.js';
import type { Tool } from '../../tool.js';
import type { Workspace } from '../../workspace-types.js';
import { onDiskProblem } from './checks.js';
import type { Tier } from './inside.js';
import { classifyCommand, type Classified, type Unclassified } from './judge.js';

export type { Tier } from './inside.js';

/** How commands are judged: the tier, the workspace its on-disk checks look at, and whether no sandbox works (`auto`). */
export interface ClassifierMode {
  tier?: Tier;
  /** The workspace, for the none tier's on-disk checks (links out of it, git's own repository); required with tier none. */
  workspace?: string;
  failClosed?: boolean;
  /** The policy's rules on paths: without a sandbox no mask holds them, so the none tier asks for what they withhold. */
  rules?: PathRules;
}

/** Why a read-only part asks where no sandbox works. */
const FAIL_CLOSED = 'no sandbox works on this host (builtins.Bash.sandbox: auto), so every command asks';

/** A part's text in a reason: enough to recognise it, never a 50,000-character line. */
const excerpt = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}…` : text);

/** classify's none-tier checks look at the caller's workspace when given, else at the configured one. */
interface BashPermissionHooks {
  classify(args: Record<string, unknown>, ws?: Workspace): ReturnType<NonNullable<Tool['classify']>>;
  canonicalArgs(args: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
}

/**
 * The Bash tool's permission hooks: `classify` names each simple command with its class (unknown, DENY, when it does not parse);
 * `canonicalArgs` spells it canonically, for the rules and approvals. See docs/bash.md.
 */
export function bashPermissionHooks(mode: ClassifierMode = {}): BashPermissionHooks {
  const { tier = 'sandbox', failClosed = false, workspace, rules } = mode;
  if (tier === 'none' && workspace === undefined) throw new Error('the none tier needs the workspace to check paths on');
  // canonicalArgs and then the permission gate's classify get the same arguments object of a call: the command is
  // parsed once for both, not twice. Keyed by the object, checked by the command, so a changed command is parsed again.
  const parsed = new WeakMap<object, { command: string; classified: Classified | Unclassified }>();
  const classifyOnce = (args: Record<string, unknown>, command: string): Classified | Unclassified => {
    const known = parsed.get(args);
    if (known?.command === command) return known.classified;
    const classified = classifyCommand(command, tier);
    parsed.set(args, { command, classified });
    return classified;
  };
  return {
    classify(args, ws) {
      const command = args.command;
      if (typeof command !== 'string') return 'unknown';
      const classified = classifyOnce(args, command);
      if ('problem' in classified) return { unknown: classified.problem };
      const cds = tier === 'none' ? classified.units.flatMap((unit) => (unit.needs?.cd === undefined ? [] : [unit.needs.cd])) : [];
      return {
        parts: classified.units.map((unit) => {
          const closed = failClosed && unit.verdict.decision === 'allow';
          // Checked at each call, never cached: the files can change between calls.
          const outside =
            tier === 'none' && unit.needs && unit.verdict.decision === 'allow'
              ? onDiskProblem(ws?.root ?? workspace!, cds, unit.needs, rules)
              : undefined;
          return {
            args: { ...args, command: unit.text },
            decision: closed || outside ? 'ask' : unit.verdict.decision,
            reason: `${excerpt(unit.text)}: ${outside ?? unit.verdict.reason}${closed ? `; ${FAIL_CLOSED}` : ''}`,
          };
        }),
      };
    },
    async canonicalArgs(args) {
      const command = args.command;
      const classified = typeof command === 'string' ? classifyOnce(args, command) : undefined;
      return classified && 'canonical' in classified ? [{ ...args, command: classified.canonical }] : [];
    },
  };
}
