/** A permission decision: run, ask a human first, or refuse. */
export type Decision = 'allow' | 'ask' | 'deny';

/** Deny over ask over allow: the one ranking every part of the gateway compares with. */
export const RANK: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: Decision, b: Decision): Decision {
  return RANK[b] > RANK[a] ? b : a;
}

/** The more restrictive of two decided things; the first on a tie, so the first reason found is kept. */
export function strictest<T extends { decision: Decision }>(a: T, b: T): T {
  return RANK[b.decision] > RANK[a.decision] ? b : a;
}
