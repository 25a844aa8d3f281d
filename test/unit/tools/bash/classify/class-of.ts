import { stricter, type Decision } from '../../../../../src/policy/index.js';
import { classifyCommand } from '../../../../../src/tools/bash/classify/judge.js';

/** A command's class in the sandbox tier (the most restrictive of its parts), or `unknown` when it does not parse. */
export function classOf(command: string): Decision | 'unknown' {
  const classified = classifyCommand(command);
  if ('problem' in classified) return 'unknown';
  return classified.units.reduce<Decision>((decision, unit) => stricter(decision, unit.verdict.decision), 'allow');
}
