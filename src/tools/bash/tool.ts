import type { BashConfig } from '../../config/schema.js';
import type { PathRules } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';
import { redactedHead, type RedactionCounts } from '../../guardrails/index.js';
import { isSpillFailure } from '../../spill/spill-store.js';
import { tierOf } from '../capabilities.js';
import type { Tool, ToolContext, ToolOutput, ToolSecrets } from '../tool.js';
import { decodeText } from '../../shared/decode-text.js';
import { bashPermissionHooks } from './classify/index.js';
import { commandEnv, emptyHome, SANDBOX_HOME } from './env.js';
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

/** A stream's first `capBytes`, scanned whole before the cut so no credential's first characters stay readable. */
function keptText(head: Buffer, capBytes: number, secrets: ToolSecrets | undefined): string {
  if (!secrets || head.length <= capBytes) return decodeText(head, capBytes);
  const counts: RedactionCounts = {};
  const text = redactedHead(secrets.scanner, head, capBytes, counts);
  secrets.count(counts);
  return text;
}

/** A stream's kept text; when it was cut, a line saying so and where the whole stream is. */
function shown(name: string, captured: Captured, capBytes: number, noted: boolean, secrets: ToolSecrets | undefined): string {
  const text = keptText(captured.head, capBytes, secrets);
  if (!captured.spilled || !noted) return text;
  const where = isSpillFailure(captured.spilled)
    ? 'the rest was not kept (the spill store is unavailable)'
    : `the whole stream: /outputs/${captured.spilled.id}`;
  return `${text}${text.endsWith('\n') ? '' : '\n'}[${name} cut at ${capBytes} of ${counted(captured.bytes, 'byte')}; ${where}]\n`;
}

/** `text` is stdout, then stderr after a `--- stderr ---` line; a single cut stream's spill is the call's `truncated` record. */
export function commandOutput(outcome: RunOutcome, capBytes: number, secrets?: ToolSecrets): ToolOutput {
  const { stdout, stderr } = outcome;
  const single = stdout.bytes === 0 || stderr.bytes === 0;
  const out = shown('stdout', stdout, capBytes, !single, secrets);
  const err = shown('stderr', stderr, capBytes, !single, secrets);
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
  /** The configured workspace: where the none tier's checks look when a call names no tenant's (the classify command). */
  workspace: string;
  settings: BashConfig;
  sandbox: Sandbox;
  identity: Identity;
  /** The policy's rules on paths, which the sandbox mounts for each command. */
  rules: PathRules;
}

interface RunOptions extends BashToolOptions {
  /** HOME outside the sandbox (see emptyHome). */
  home: () => string;
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
 * Runs as the permission gate decided: read-only by its class (ctx.readOnly), the sandbox binds the workspace read-only. The call's
 * deadline is the pipeline's (ctx.signal); `timeout_ms` only sets an earlier one.
 */
async function run(args: Record<string, unknown>, ctx: ToolContext, options: RunOptions): Promise<ToolOutput> {
  const { settings, sandbox } = options;
  // The caller's tenant's root: the sandbox binds it and nothing else of the workspace.
  const workspace = ctx.workspace.root;
  const command = args.command as string;
  const readOnly = sandbox.info.mode === 'bwrap' && ctx.readOnly === true;
  const started = Date.now();
  const own = typeof args.timeout_ms === 'number' ? started + args.timeout_ms : Infinity;
  const lowered = own <= ctx.deadline;
  const deadline = lowered ? own : ctx.deadline;
  const launch = await sandbox.launch(command, workspace, limitsOf(settings), options.rules, readOnly, settings.git_history);
  const outcome = await runCommand({
    launch,
    cwd: workspace,
    env: commandEnv(workspace, sandbox.info.mode === 'bwrap' ? SANDBOX_HOME : options.home()),
    identity: options.identity,
    ...(lowered && { deadline }),
    signal: ctx.signal,
    capBytes: settings.output_cap_bytes,
    spill: ctx.spill,
  }).finally(() => launch.release?.());
  if (outcome.timedOut) {
    throw new GatewayError('TIMEOUT', {
      message: `The command did not finish within ${deadline - started} ms; its processes were killed.`,
      // A deadline the call's own timeout_ms set is the caller's choice: the breaker does not count it (gates/breaker.ts).
      details: { timeout_ms: deadline - started, lowered_by_arguments: lowered },
      suggestion: "Run less in one command, or give it a longer timeout_ms (up to the tool's timeout).",
    });
  }
  return commandOutput(outcome, settings.output_cap_bytes, ctx.secrets);
}

/** The Bash tool: not concurrency-safe (a command may change anything in the workspace); classified before it runs. */
export function createBashTool(options: BashToolOptions): Tool {
  const hooks = bashPermissionHooks({
    tier: tierOf(options.sandbox.info),
    workspace: options.workspace,
    rules: options.rules,
    failClosed: options.sandbox.info.fail_closed === true,
  });
  const runOptions: RunOptions = { ...options, home: emptyHome() };
  return {
    ...hooks,
    name: 'Bash',
    description: descriptionFor(options.sandbox),
    parameters: PARAMETERS,
    concurrencySafe: false,
    sandbox: options.sandbox.info,
    run: (args, ctx) => run(args, ctx, runOptions),
  };
}
