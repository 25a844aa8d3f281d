import { guardSpill, redactOutput, type RedactionCounts } from '../guardrails/index.js';
import type { CallResult } from '../protocol/result.js';
import type { ToolContext, ToolEvents, ToolSecrets } from '../tools/tool.js';
import type { PipelineDeps } from './types.js';

/** One call's guardrails (docs/guardrails.md): the spill its tool gets, what its caller hears while it runs, and its result as it may leave the gateway. */
export interface CallGuard {
  spill: ToolContext['spill'];
  /** For the tool: absent with `guardrails.secrets` off for it. */
  secrets?: ToolSecrets;
  /** The caller's events with every credential in what they carry redacted. */
  events(events: ToolEvents): ToolEvents;
  /** The result with its credentials redacted, and what was, by kind; absent when nothing was. */
  redact(result: CallResult): { result: CallResult; redactions?: RedactionCounts };
}

function add(into: RedactionCounts, found: RedactionCounts): void {
  for (const [kind, count] of Object.entries(found)) into[kind] = (into[kind] ?? 0) + count;
}

/** The guard of a call to `tool`: with `guardrails.secrets` off for it, its spill, events and results pass as they are. */
export function callGuard(tool: string, spill: ToolContext['spill'], deps: Pick<PipelineDeps, 'guardrails'>): CallGuard {
  const scanner = deps.guardrails.forTool(tool);
  if (!scanner) return { spill, events: (events) => events, redact: (result) => ({ result }) };
  // What the tool's own spill held, counted with its text: a cut output's counts are those of the whole.
  const spilled: RedactionCounts = {};
  // What the tool redacted itself in what it shows, and what the caller heard while it ran.
  const own: RedactionCounts = {};
  return {
    spill: guardSpill(scanner, spill, spilled),
    secrets: { scanner, count: (counts) => add(own, counts) },
    events(events) {
      const redacted: ToolEvents = { log: (entry) => events.log(scanner.redactValue(entry, own) as Record<string, unknown>) };
      const progress = events.progress;
      if (progress) redacted.progress = (update) => progress(scanner.redactValue(update, own) as typeof update);
      // What an upstream asks the caller's client (an elicitation's message, a sampling request's messages) is shown to people and models.
      const ask = events.ask;
      if (ask) redacted.ask = (request, signal) => ask(scanner.redactValue(request, own) as typeof request, signal);
      return redacted;
    },
    redact(result) {
      const { output, counts } = redactOutput(scanner, result, spilled, own);
      return counts ? { result: output, redactions: counts } : { result };
    },
  };
}
