import type { Decision } from './decision.js';

/** One part of a call as the tool judges it (a shell command's simple command), with the arguments policy rules see for it. */
interface ClassifiedPart {
  args: Record<string, unknown>;
  decision: Decision;
  /** Why, for the denial message. */
  reason: string;
}

/**
 * The class a tool derives from its own arguments, e.g. a shell command's
 * risk: one decision for the call, or one for each part of it. Unknown
 * (the tool cannot read the arguments, a command that does not parse; as
 * `{unknown: why}` with what is wrong) is DENY whatever the rules say.
 */
export type ToolClassification = Decision | 'unknown' | { unknown: string } | { parts: ClassifiedPart[] };
