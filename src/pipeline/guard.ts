import { guardSpill, redactOutput, type RedactionCounts } from '../guardrails/index.js';
import type { CallResult } from '../protocol/result.js';
import type { ToolContext } from '../tools/tool.js';
import type { PipelineDeps } from './types.js';

/** One call's guardrails (docs/guardrails.md): the spill its tool gets, and its result as it may leave the gateway. */
interface CallGuard {
  spill: ToolContext['spill'];
  /** The result with its credentials redacted, and what was, by kind; absent when nothing was. */
  redact(result: CallResult): { result: CallResult; redactions?: RedactionCounts };
}

/** The guard of a call to `tool`: with `guardrails.secrets` off for it, its spill and results pass as they are. */
export function callGuard(tool: string, spill: ToolContext['spill'], deps: Pick<PipelineDeps, 'guardrails'>): CallGuard {
  const scanner = deps.guardrails.forTool(tool);
  if (!scanner) return { spill, redact: (result) => ({ result }) };
  // What the tool's own spill held, counted with its text: a cut output's counts are those of the whole.
  const spilled: RedactionCounts = {};
  return {
    spill: guardSpill(scanner, spill, spilled),
    redact(result) {
      const { output, counts } = redactOutput(scanner, result, spilled);
      return counts ? { result: output, redactions: counts } : { result };
    },
  };
}
