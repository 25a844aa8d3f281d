import type { Tool } from '../../tool.js';
import { classifyCommand, type Classified, type Unclassified } from './judge.js';

/** Why a read-only part asks where no sandbox works. */
const FAIL_CLOSED = 'no sandbox works on this host (builtins.Bash.sandbox: auto), so every command asks';

/** A part's text in a reason: enough to recognise it, never a 50,000-character line. */
const excerpt = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}…` : text);

/**
 * The Bash tool's permission hooks. `classify` parses the
 * command with mvdan-sh and names every simple command in it with its class,
 * for the permission gate to apply policy rules to each; a command that does
 * not parse (or is too long, or not a string) is unknown, which is DENY, with
 * what is wrong with it. `canonicalArgs`
 * gives the command with every simple command spelled canonically, quotes
 * removed ('r''m' is rm): policy rules see it as well as the command as sent,
 * and approvals are bound to it. `failClosed` (sandbox `auto` where none
 * works) makes every ALLOW part ASK.
 */
export function bashPermissionHooks(failClosed = false): Pick<Tool, 'classify' | 'canonicalArgs'> {
  // canonicalArgs and then the permission gate's classify get the same arguments object of a call: the command is
  // parsed once for both, not twice. Keyed by the object, checked by the command, so a changed command is parsed again.
  const parsed = new WeakMap<object, { command: string; classified: Classified | Unclassified }>();
  const classifyOnce = (args: Record<string, unknown>, command: string): Classified | Unclassified => {
    const known = parsed.get(args);
    if (known?.command === command) return known.classified;
    const classified = classifyCommand(command);
    parsed.set(args, { command, classified });
    return classified;
  };
  return {
    classify(args) {
      const command = args.command;
      if (typeof command !== 'string') return 'unknown';
      const classified = classifyOnce(args, command);
      if ('problem' in classified) return { unknown: classified.problem };
      return {
        parts: classified.units.map((unit) => {
          const closed = failClosed && unit.verdict.decision === 'allow';
          return {
            args: { ...args, command: unit.text },
            decision: closed ? 'ask' : unit.verdict.decision,
            reason: `${excerpt(unit.text)}: ${unit.verdict.reason}${closed ? `; ${FAIL_CLOSED}` : ''}`,
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
