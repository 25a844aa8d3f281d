import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom, inspectConfig } from '../../../src/config/load.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { prepare } from '../../../src/startup.js';
import { commandIdentity } from '../../../src/tools/bash/identity.js';
import { setUpBash } from '../../../src/tools/bash/index.js';
import { chooseSandbox } from '../../../src/tools/bash/sandbox.js';
import { createBashTool } from '../../../src/tools/bash/tool.js';
import { createPolicy } from '../../../src/policy/index.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import { makeWorkspace, removeAll } from './helpers.js';

/**
 * Which sandbox is in force is decided at start-up by running
 * a command in it (bubblewrap can be installed and still refused by the
 * kernel); `required` without a working one stops start-up with the problem
 * listed, `none` and a fallback of `auto` are loud warnings, and the start-up
 * log says which mode is in force.
 */

let workspace: string;
let scratch: string;
let refusingBwrap: string;
const dispatchers = createHttpDispatchers();

beforeAll(async () => {
  workspace = await makeWorkspace();
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-bash-startup-'));
  await chmod(scratch, 0o755);
  // What bwrap prints where user namespaces are off: installed, yet it cannot build a sandbox.
  refusingBwrap = join(scratch, 'bwrap');
  await writeFile(refusingBwrap, '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n');
  await chmod(refusingBwrap, 0o755);
});
afterAll(async () => {
  await removeAll(workspace, scratch);
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

describe('choosing the sandbox: a probe that runs a command in it', () => {
  // As the tool runs it: as the workspace's owner when the tests run as root.
  const as = () => commandIdentity(workspace).identity;
  it('a working bubblewrap: bwrap is in force under auto and required', () => {
    expect(chooseSandbox('auto', workspace, as()).sandbox?.info).toEqual({ mode: 'bwrap', setting: 'auto' });
    expect(chooseSandbox('required', workspace, as()).sandbox?.info).toEqual({ mode: 'bwrap', setting: 'required' });
  });

  it('required with a bwrap the kernel refuses: a problem naming why and what to do, no sandbox', () => {
    const choice = chooseSandbox('required', workspace, as(), { bwrap: refusingBwrap });
    expect(choice.sandbox).toBeUndefined();
    expect(choice.problem).toMatch(
      /builtins\.Bash\.sandbox is required, but bubblewrap .* does not work here: exited with 1: bwrap: No permissions/,
    );
    expect(choice.problem).toContain('apt-get install bubblewrap');
  });

  it('required with no bwrap at all: the same problem', () => {
    expect(chooseSandbox('required', workspace, as(), { bwrap: join(scratch, 'missing-bwrap') }).problem).toMatch(/ENOENT/);
  });

  it.each(['required', 'none'] as const)('%s without bash: a problem naming it, never another shell in its place', (setting) => {
    const choice = chooseSandbox(setting, workspace, as(), { bashPaths: [join(scratch, 'no-bash'), join(scratch, 'nor-this')] });
    expect(choice.sandbox).toBeUndefined();
    expect(choice.problem).toMatch(/^builtins\.Bash: bash is not installed \(looked for .*no-bash, .*nor-this\).*apt-get install bash/);
  });

  it('auto with a refused bwrap: fails closed, every command that is not DENY asks, and says so loudly', () => {
    const choice = chooseSandbox('auto', workspace, as(), { bwrap: refusingBwrap });
    expect(choice.sandbox?.info).toEqual({ mode: 'none', setting: 'auto', fail_closed: true });
    expect(choice.warning).toMatch(
      /WITHOUT a sandbox: bubblewrap .* does not work here: .*every command that is not refused asks for an approval/,
    );
    const settings = configFrom({ builtins: { Bash: { enabled: true } } }).builtins.Bash;
    const tool = createBashTool({ workspace, settings, sandbox: choice.sandbox!, identity: {}, rules: createPolicy([]) });
    expect(tool.sandbox).toEqual({ mode: 'none', setting: 'auto', fail_closed: true });
    expect(tool.classify!({ command: 'ls -la && cat README.md' })).toEqual({
      parts: [
        expect.objectContaining({
          decision: 'ask',
          reason: expect.stringMatching(
            /^ls -la: .*; no sandbox works on this host \(builtins\.Bash\.sandbox: auto\), so every command asks$/,
          ),
        }),
        expect.objectContaining({ decision: 'ask' }),
      ],
    });
    expect(tool.classify!({ command: 'ls; rm -rf src' })).toMatchObject({ parts: [{ decision: 'ask' }, { decision: 'deny' }] });
  });

  it('none keeps the classes: a read-only command is ALLOW without a sandbox, said in the warning', () => {
    const choice = chooseSandbox('none', workspace, as(), { bwrap: refusingBwrap });
    const settings = configFrom({ builtins: { Bash: { enabled: true, sandbox: 'none' } } }).builtins.Bash;
    const tool = createBashTool({ workspace, settings, sandbox: choice.sandbox!, identity: {}, rules: createPolicy([]) });
    expect(tool.classify!({ command: 'ls -la' })).toMatchObject({ parts: [{ decision: 'allow' }] });
    expect(choice.warning).toMatch(/read-only commands run without an approval/);
  });

  it('none: no probe of bwrap, and a warning', () => {
    const choice = chooseSandbox('none', workspace, as(), { bwrap: refusingBwrap });
    expect(choice.sandbox?.info).toEqual({ mode: 'none', setting: 'none' });
    expect(choice.warning).toMatch(/WITHOUT a sandbox \(builtins\.Bash\.sandbox: none\)/);
  });
});

describe('start-up', () => {
  async function start(bash: Record<string, unknown>) {
    const file = join(scratch, `config-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, JSON.stringify({ builtins: { Bash: bash } }));
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const env = { TOOLGATE_WORKSPACE: workspace, TOOLGATE_SPILL_URL: `file://${join(scratch, 'spill')}` };
    const prepared = await prepare(inspectConfig(env, file), env, dispatchers, createMetrics({ processMetrics: false }), logger);
    await prepared.mcp.close();
    return { prepared, lines };
  }

  it('the log says bubblewrap is in force', async () => {
    const { prepared, lines } = await start({ enabled: true, sandbox: 'required' });
    expect(prepared.registry.get('Bash')?.tool.sandbox).toEqual({ mode: 'bwrap', setting: 'required' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        tool: 'Bash',
        sandbox: 'bwrap',
        tier: 'sandbox',
        msg: 'Bash enabled: commands run in bubblewrap (tier sandbox: the read-only table runs without an approval)',
      }),
    );
  });

  it('sandbox: none logs a warning and says no sandbox is in force', async () => {
    const { lines } = await start({ enabled: true, sandbox: 'none' });
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, tool: 'Bash', msg: expect.stringContaining('WITHOUT a sandbox') }));
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        sandbox: 'none',
        tier: 'none',
        msg: 'Bash enabled: commands run WITHOUT a sandbox (tier none: only the inert core runs without an approval)',
      }),
    );
  });

  it('Bash not enabled: nothing is probed or said', async () => {
    const { prepared, lines } = await start({ sandbox: 'required' });
    expect(prepared.registry.get('Bash')).toBeUndefined();
    expect(lines.filter((line) => line.tool === 'Bash')).toEqual([]);
  });

  it('a bad Bash setting stops start-up with the problem listed', async () => {
    await expect(start({ enabled: true, sandbox: 'sometimes', limits: { processes: 0 } })).rejects.toThrow(
      /builtins\.Bash\.sandbox: must be one of "auto", "required", "none"[\s\S]*builtins\.Bash\.limits\.processes: must be >= 1/,
    );
  });
});

describe('rules for writing that the sandbox holds only where their paths exist', () => {
  it('each is named in a start-up warning; one that keeps a folder whole is not', () => {
    const rules = createPolicy([
      { tool: 'Write', when: { path: '\\.env$' }, decision: 'deny' },
      { tool: 'Write', when: { path: '^deploy/' }, decision: 'deny' },
      { tool: 'Read', when: { path: 'secret' }, decision: 'deny' },
    ]);
    const settings = configFrom({ workspace, builtins: { Bash: { enabled: true, sandbox: 'required' } } }).builtins.Bash;
    const setup = setUpBash(settings, workspace, true, rules);
    expect(setup.problems).toEqual([]);
    expect(setup.warnings.filter((w) => w.startsWith('policy.rules.'))).toEqual([
      expect.stringMatching(/^policy\.rules\.0: .* can create new ones.*'\^folder\/'/),
    ]);
  });
});
