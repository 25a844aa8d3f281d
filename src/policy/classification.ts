import type { Decision } from './decision.js';

/** One part of a call (a shell command's simple command), with the arguments policy rules see for it. */
interface ClassifiedPart {
  args: Record<string, unknown>;
  decision: Decision;
  /** Why, for the denial message. */
  reason: string;
}

/** The class a tool derives from its arguments, for the call or each part; unknown (`{unknown: why}`) is DENY whatever the rules say. */
export type ToolClassification = Decision | 'unknown' | { unknown: string } | { parts: ClassifiedPart[] };
