import type { SecretScanner } from '../guardrails/index.js';
import { redactSecrets } from '../observability/logger.js';
import type { ApprovalPreview } from '../protocol/approval.js';
import { isGatewayError } from '../protocol/errors.js';
import { stricter, type Decision } from '../policy/index.js';
import type { Tool } from '../tools/tool.js';
import { unifiedDiff } from './diff.js';

/**
 * Strings in an approval's arguments are kept up to this many characters: a
 * person reads a command or a path whole, while a file's content is shown
 * by the preview's diff and need not be stored twice.
 */
const ARGUMENT_CHARS = 4096;

/** The arguments an approval request shows: secrets redacted, long strings cut. */
export function approvalArguments(args: Record<string, unknown>): unknown {
  return redactSecrets(args, ARGUMENT_CHARS);
}

/** Bash: the command, the class its parts give it, what the classifier said of each, and where it would run. */
function commandPreview(tool: Tool, args: Record<string, unknown>): ApprovalPreview | undefined {
  const command = args.command;
  if (typeof command !== 'string' || !tool.sandbox || !tool.classify) return undefined;
  const classified = tool.classify(args);
  let decision: Decision = 'allow';
  let reasons: string[] = [];
  if (typeof classified === 'string') decision = classified === 'unknown' ? 'deny' : classified;
  else if ('unknown' in classified) [decision, reasons] = ['deny', [classified.unknown]];
  else {
    for (const part of classified.parts) decision = stricter(decision, part.decision);
    reasons = classified.parts.map((part) => part.reason);
  }
  return {
    kind: 'command',
    command: redactSecrets(command, ARGUMENT_CHARS) as string,
    class: decision,
    reasons,
    sandbox: tool.sandbox.mode,
  };
}

/** Write and Edit: the unified diff of the file as it is now against what the call would leave. */
async function diffPreview(tool: Tool, args: Record<string, unknown>): Promise<ApprovalPreview> {
  const path = typeof args.path === 'string' ? args.path : '';
  try {
    const change = await tool.proposeChange!(args);
    const shown = unifiedDiff(change.path, change.before, change.after);
    const note = [change.note, shown.note].filter(Boolean).join(' ');
    return {
      kind: 'diff',
      path: change.path,
      diff: shown.diff,
      new_file: change.base === null,
      base: change.base,
      truncated: shown.truncated,
      ...(note && { note }),
    };
  } catch (err) {
    // The call would fail as things are: the person deciding sees why, and the call says so again if it runs.
    const why = isGatewayError(err) ? err.message : 'the file could not be read';
    return {
      kind: 'diff',
      path,
      diff: '',
      new_file: false,
      base: null,
      truncated: false,
      note: `As the workspace is now, this call would fail: ${why}`,
    };
  }
}

/**
 * What an approval request shows of the call it asks about, computed once,
 * when the request is made, and stored with it, so every replica shows the
 * same: a diff for a tool that proposes file changes (Write, Edit), the
 * command with its class for Bash, the arguments for any other tool. Every
 * preview text passes through here: with `scanner` (the tool's guardrails,
 * see docs/guardrails.md) every credential in it, a file's content in a diff
 * above all, is replaced by its marker before anyone sees it.
 */
export async function previewOf(tool: Tool, args: Record<string, unknown>, scanner?: SecretScanner): Promise<ApprovalPreview> {
  const preview = tool.proposeChange
    ? await diffPreview(tool, args)
    : (commandPreview(tool, args) ?? { kind: 'arguments', arguments: approvalArguments(args) });
  return scanner ? (scanner.redactValue(preview, {}) as ApprovalPreview) : preview;
}
