import { strictest, type Decision } from '../../../policy/index.js';

/** A class with the reason a human reads in the denial or the approval request. */
export interface Verdict {
  decision: Decision;
  reason: string;
}

export const allow = (reason: string): Verdict => ({ decision: 'allow', reason });
export const ask = (reason: string): Verdict => ({ decision: 'ask', reason });
export const deny = (reason: string): Verdict => ({ decision: 'deny', reason });

/** The more restrictive of two verdicts; the first on a tie, so the first reason found is kept. */
export const worst: (a: Verdict, b: Verdict) => Verdict = strictest;
