import type { SecretScanner } from '../guardrails/index.js';
import { redactSecrets } from '../observability/logger.js';
import type { ApprovalPreview } from '../protocol/approval.js';
import { isGatewayError } from '../protocol/errors.js';
import { stricter, type Decision } from '../policy/index.js';
import type { Tool } from '../tools/tool.js';
import type { Workspace } from '../tools/workspace-types.js';
import { unifiedDiff } from './diff.js';
import { visibleValue } from './visible.js';

/** A person reads a command or a path whole; a file's content is shown by the diff. */
const ARGUMENT_CHARS = 4096;

function redactedArguments(args: unknown, scanner: SecretScanner): unknown {
  return redactSecrets(scanner.redactValue(args, {}), ARGUMENT_CHARS);
}

export function approvalArguments(args: unknown, scanner: SecretScanner): unknown {
  return visibleValue(redactedArguments(args, scanner));
}

/** Scanned before long strings are cut, so a cut never halves a credential. */
function shownValue(value: unknown, scanner: SecretScanner | undefined): unknown {
  return scanner ? redactedArguments(value, scanner) : redactSecrets(value, ARGUMENT_CHARS);
}

function commandPreview(
  tool: Tool,
  args: Record<string, unknown>,
  workspace: () => Workspace,
  scanner: SecretScanner | undefined,
): ApprovalPreview | undefined {
  const command = args.command;
  if (typeof command !== 'string' || !tool.sandbox || !tool.classify) return undefined;
  const classified = tool.classify(args, workspace());
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
    command: shownValue(command, scanner) as string,
    class: decision,
    reasons,
    sandbox: tool.sandbox.mode,
  };
}

async function diffPreview(
  tool: Tool,
  args: Record<string, unknown>,
  workspace: () => Workspace,
  scanner: SecretScanner | undefined,
): Promise<ApprovalPreview> {
  const path = typeof args.path === 'string' ? args.path : '';
  try {
    const change = await tool.proposeChange!(args, workspace(), scanner);
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
 * Made once, when the request is made, and stored with it, so every replica shows the same (docs/approvals.md,
 * "The preview"). Every preview text is redacted with `scanner`, then its hidden characters shown; what runs is the
 * call's own arguments, untouched.
 */
export async function previewOf(
  tool: Tool,
  args: Record<string, unknown>,
  workspace: () => Workspace,
  scanner?: SecretScanner,
): Promise<ApprovalPreview> {
  const preview = tool.proposeChange
    ? await diffPreview(tool, args, workspace, scanner)
    : (commandPreview(tool, args, workspace, scanner) ?? { kind: 'arguments', arguments: shownValue(args, scanner) });
  return visibleValue(scanner ? scanner.redactValue(preview, {}) : preview) as ApprovalPreview;
}
