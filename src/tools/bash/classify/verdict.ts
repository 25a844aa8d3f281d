/** A class of a shell command or of one part of it. */
export type Decision = 'allow' | 'ask' | 'deny';

/** A class with the reason a human reads in the denial or the approval request. */
export interface Verdict {
  decision: Decision;
  reason: string;
}

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

export const allow = (reason: string): Verdict => ({ decision: 'allow', reason });
export const ask = (reason: string): Verdict => ({ decision: 'ask', reason });
export const deny = (reason: string): Verdict => ({ decision: 'deny', reason });

/** The more restrictive of two verdicts; the first on a tie, so the first reason found is kept. */
export function worst(a: Verdict, b: Verdict): Verdict {
  return RANK[b.decision] > RANK[a.decision] ? b : a;
}
