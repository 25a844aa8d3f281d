import type { BashConfig } from '../../config/schema.js';
import type { PathRules, ToolClassification } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';
import { isSpillFailure } from '../../spill/spill-store.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import { utf8Prefix } from '../utf8.js';
import { bashPermissionHooks } from './classify/index.js';
import { commandEnv } from './env.js';
import type { Identity } from './identity.js';
import { runCommand, type Captured, type RunOutcome } from './run.js';
import type { ResourceLimits, Sandbox } from './sandbox.js';
import { counted } from '../../shared/count.js';

/** What the model reads: the sandbox's part only when one is in force, so the text never promises what does not hold. */
function descriptionFor(sandbox: Sandbox): string {
  return [
    'Run a bash command in the workspace and return its stdout and stderr.',
    'A command that exits non-zero answers COMMAND_FAILED with its output.',
    'Read-only commands run at once; commands that change files or install ask for approval; deletion, privilege and nested shells are refused.',
    sandbox.info.mode === 'bwrap'
      ? 'It runs in a sandbox: only the workspace is writable (read-only to a read-only command), and there is no network.'
      : '',
    'stdin is empty; a command still running at the timeout is killed.',
  ]
    .filter(Boolean)
    .join(' ');
}

const PARAMETERS = {
  type: 'object',
  properties: {
    // No NUL: a process's arguments cannot hold one, so such a command could never run as written.
    command: {
      type: 'string',
      minLength: 1,
      pattern: '^[^\\u0000]*$',
      description: 'The command line, run with bash -c in the workspace root.',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      description: "Kill the command after this many milliseconds; lowers, never raises, the tool's timeout.",
    },
  },
  required: ['command'],
  additionalProperties: false,
};

/** The line between stdout and stderr in `text`. */
export const STDERR_MARKER = '--- stderr ---';

/** A stream's kept text; when it was cut, a line saying so and where the whole stream is. */
function shown(name: string, captured: Captured, capBytes: number, noted: boolean): string {
  const text = utf8Prefix(captured.head, capBytes);
  if (!captured.spilled || !noted) return text;
  const where = isSpillFailure(captured.spilled)
    ? 'the rest was not kept (the spill store is unavailable)'
    : `the whole stream: /outputs/${captured.spilled.id}`;
  return `${text}${text.endsWith('\n') ? '' : '\n'}[${name} cut at ${capBytes} of ${counted(captured.bytes, 'byte')}; ${where}]\n`;
}

/**
 * `text` is stdout, then stderr after a `--- stderr ---` line when there is
 * any. When the text is a single stream that was cut, that stream's spill is
 * the call's `truncated` record (it is the whole output); when both streams
 * have output, a cut one says inline where it is whole, and the budget
 * treats the joined text like any other output.
 */
export function commandOutput(outcome: RunOutcome, capBytes: number): ToolOutput {
  const { stdout, stderr } = outcome;
  const single = stdout.bytes === 0 || stderr.bytes === 0;
  const out = shown('stdout', stdout, capBytes, !single);
  const err = shown('stderr', stderr, capBytes, !single);
  const text = stderr.bytes === 0 ? out : `${out}${out === '' || out.endsWith('\n') ? '' : '\n'}${STDERR_MARKER}\n${err}`;
  const data = { exit_code: outcome.exitCode, signal: outcome.signal, stdout_bytes: stdout.bytes, stderr_bytes: stderr.bytes };
  const output: ToolOutput = { text, data };
  const cut = stdout.spilled ?? stderr.spilled;
  if (cut) {
    output.partial = true;
    if (single) output.spilled = { originalBytes: cut.bytes, record: cut };
  }
  if (outcome.exitCode !== 0) {
    const how = outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited with ${outcome.exitCode}`;
    output.error = new GatewayError('COMMAND_FAILED', {
      message: `The command ${how}.`,
      details: { exit_code: outcome.exitCode, signal: outcome.signal },
      suggestion: "Read its output in text: a non-zero exit is the command's answer (grep finding nothing exits 1).",
    });
  }
  return output;
}

interface BashToolOptions {
  workspace: string;
  settings: BashConfig;
  sandbox: Sandbox;
  identity: Identity;
  /** The policy's rules on paths, which the sandbox mounts for each command. */
  rules: PathRules;
}

function limitsOf(settings: BashConfig): ResourceLimits {
  const { limits } = settings;
  return {
    processes: limits.processes,
    fileSizeBytes: limits.file_size_bytes,
    cpuSeconds: limits.cpu_seconds,
    openFiles: limits.open_files,
  };
}

/**
 * Whether the classifier reads every part of the command as read-only
 * (ALLOW by its own class, before policy rules). Such a command runs with the
 * whole workspace read-only: whatever it runs that the classifier did not
 * see (a program a repository's `.git/config` names for `git diff`, a
 * textconv or filter driver), it can change nothing. A command a rule
 * widened or a person approved runs with the workspace writable.
 */
function readOnlyClass(classification: ToolClassification | undefined): boolean {
  return typeof classification === 'object' && 'parts' in classification && classification.parts.every((part) => part.decision === 'allow');
}

async function run(
  args: Record<string, unknown>,
  ctx: ToolContext,
  options: BashToolOptions,
  classify: Tool['classify'],
): Promise<ToolOutput> {
  const { workspace, settings, sandbox } = options;
  const command = args.command as string;
  const readOnly = sandbox.info.mode === 'bwrap' && readOnlyClass(classify?.(args));
  const started = Date.now();
  const own = typeof args.timeout_ms === 'number' ? started + args.timeout_ms : Infinity;
  const deadline = Math.min(own, ctx.deadline);
  const outcome = await runCommand({
    launch: await sandbox.launch(command, workspace, limitsOf(settings), options.rules, readOnly),
    cwd: workspace,
    env: commandEnv(workspace),
    identity: options.identity,
    deadline,
    signal: ctx.signal,
    capBytes: settings.output_cap_bytes,
    spill: ctx.spill,
  });
  if (outcome.timedOut) {
    throw new GatewayError('TIMEOUT', {
      message: `The command did not finish within ${deadline - started} ms; its processes were killed.`,
      // A deadline the call's own timeout_ms set is the caller's choice: the breaker does not count it (gates/breaker.ts).
      details: { timeout_ms: deadline - started, lowered_by_arguments: own <= ctx.deadline },
      suggestion: "Run less in one command, or give it a longer timeout_ms (up to the tool's timeout).",
    });
  }
  return commandOutput(outcome, settings.output_cap_bytes);
}

/** The Bash tool: not concurrency-safe (a command may change anything in the workspace); classified before it runs. */
export function createBashTool(options: BashToolOptions): Tool {
  const hooks = bashPermissionHooks(options.sandbox.info.fail_closed === true);
  return {
    ...hooks,
    name: 'Bash',
    description: descriptionFor(options.sandbox),
    parameters: PARAMETERS,
    concurrencySafe: false,
    sandbox: options.sandbox.info,
    run: (args, ctx) => run(args, ctx, options, hooks.classify),
  };
}
