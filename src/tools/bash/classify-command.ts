import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { policyOf, RANK, type Decision } from '../../policy/index.js';
import { bashPermissionHooks, type ClassifierMode, type Tier } from './classify/index.js';
import { commandIdentity } from './identity.js';
import { chooseSandbox } from './sandbox.js';

/** One command's judgement, as `--jsonl` writes it. */
interface Judged {
  command: string;
  verdict: Decision;
  tier: Tier;
  reasons: string[];
}

/** The classifier as a setting gives it; `auto` is the sandbox tier where bubblewrap runs here, else fail closed. */
function modeFor(setting: Config['builtins']['Bash']['sandbox'], workspace: string): ClassifierMode {
  if (setting === 'none') return { tier: 'none', workspace };
  if (setting === 'required') return { tier: 'sandbox', workspace };
  const usable =
    existsSync(workspace) && chooseSandbox('auto', workspace, commandIdentity(workspace).identity).sandbox?.info.mode === 'bwrap';
  return usable ? { tier: 'sandbox', workspace } : { tier: 'none', workspace, failClosed: true };
}

/** A judge of commands under `config`'s policy, as the permission gate judges a Bash call. */
function judgeFor(config: Config, setting: Config['builtins']['Bash']['sandbox']): (command: string) => Promise<Judged> {
  const workspace = resolve(config.workspace);
  const mode = modeFor(setting, workspace);
  const policy = policyOf(config.policy.rules);
  const hooks = bashPermissionHooks({ ...mode, rules: policy });
  const requiresApproval = config.builtins.Bash?.requires_approval ?? false;
  return async (command) => {
    const args = { command };
    const spellings = await hooks.canonicalArgs(args);
    const verdict = policy.decideCall({ tool: 'Bash', args, spellings, requiresApproval, classify: hooks.classify });
    const own = hooks.classify(args);
    const parts = typeof own === 'object' && 'parts' in own ? own.parts : [];
    // What decided first, then every part's class with why (the one that decided is not said twice).
    // A part whose class is stricter than the verdict was decided by a rule matching it (policy.ts names no rule for a widening).
    const widened = (part: (typeof parts)[number]) =>
      RANK[part.decision] > RANK[verdict.decision] ? ` (a policy rule on Bash decides it: ${verdict.decision})` : '';
    const reasons = [
      verdict.reason,
      ...parts.filter((part) => part.reason !== verdict.reason).map((part) => `${part.decision}: ${part.reason}${widened(part)}`),
    ];
    if (typeof own === 'object' && 'unknown' in own && !verdict.reason.includes(own.unknown)) reasons.push(own.unknown);
    return { command, verdict: verdict.decision, tier: mode.tier!, reasons };
  };
}

const USAGE = "usage: toolgate bash classify [--sandbox none|required] ('<command>' | --jsonl)";

/** A line of `--jsonl` input: its command, or why it is not one. */
function commandOf(line: string): { command: string } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  const command = (parsed as { command?: unknown } | null)?.command;
  if (typeof parsed !== 'object' || parsed === null || typeof command !== 'string')
    return { error: 'each line must be an object with a string "command"' };
  return { command };
}

/**
 * `toolgate bash classify`: the verdict, tier and reasons of a command (or of each `--jsonl` line), running nothing. 0 when every command
 * was judged, 1 for a bad input line, 2 for bad arguments.
 */
export async function bashClassify(argv: string[], env: NodeJS.ProcessEnv, input: Readable, out: (line: string) => void): Promise<number> {
  let values: { sandbox?: string; jsonl?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { sandbox: { type: 'string' }, jsonl: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${USAGE}`);
  }
  if (values.sandbox !== undefined && values.sandbox !== 'none' && values.sandbox !== 'required')
    throw new Error(`--sandbox must be none or required\n${USAGE}`);
  if (values.jsonl ? positionals.length > 0 : positionals.length !== 1) throw new Error(USAGE);
  const config = loadConfig(env);
  const judge = judgeFor(config, (values.sandbox as 'none' | 'required' | undefined) ?? config.builtins.Bash.sandbox);
  if (!values.jsonl) {
    const judged = await judge(positionals[0]!);
    out(`verdict: ${judged.verdict}`);
    out(`tier: ${judged.tier}`);
    for (const reason of judged.reasons) out(`reason: ${reason}`);
    return 0;
  }
  let bad = 0;
  let number = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    number++;
    if (line.trim() === '') continue;
    const read = commandOf(line);
    if ('error' in read) {
      bad++;
      out(JSON.stringify({ line: number, error: read.error }));
    } else out(JSON.stringify(await judge(read.command)));
  }
  return bad > 0 ? 1 : 0;
}
