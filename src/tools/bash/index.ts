import type { BashConfig } from '../../config/schema.js';
import type { PathRules } from '../../policy/index.js';
import type { Tool } from '../tool.js';
import { commandIdentity } from './identity.js';
import { chooseSandbox, type Sandbox } from './sandbox.js';
import { mountWarnings } from './rule-warnings.js';
import { createBashTool } from './tool.js';

/** What start-up gets for Bash: the tool, the problems that stop start-up, and the warnings to log. */
interface BashSetup {
  tool: Tool;
  problems: string[];
  warnings: string[];
}

/** Stands in for the sandbox of a Bash that is not served: its schema is listed for policy rules, it never runs. */
const unserved: Sandbox = {
  info: { mode: 'none', setting: 'none' },
  launch: () => Promise.reject(new Error('Bash is not enabled')),
};

/**
 * The Bash tool; each command runs in its caller's tenant's workspace. `workspace`, the configured root, is where
 * start-up tries the sandbox and whose owner commands run as. Only an enabled one probes the host: it
 * chooses its sandbox by running a command in it, and finds who commands
 * run as (see commandIdentity). Its sandbox mounts `rules` (the policy's
 * rules on paths) for every command; `shared`: other processes may run
 * commands on the workspace (see placeholders.ts).
 */
export function setUpBash(settings: BashConfig, workspace: string, enabled: boolean, rules: PathRules, shared = false): BashSetup {
  if (!enabled)
    return { tool: createBashTool({ workspace, settings, sandbox: unserved, identity: {}, rules }), problems: [], warnings: [] };
  const warnings: string[] = [];
  const { identity, warning } = commandIdentity(workspace);
  if (warning) warnings.push(warning);
  const choice = chooseSandbox(settings.sandbox, workspace, identity, { shared });
  if (choice.warning) warnings.push(choice.warning);
  if (choice.sandbox?.info.mode === 'bwrap') warnings.push(...mountWarnings(rules, settings));
  const sandbox = choice.sandbox ?? unserved;
  return {
    tool: createBashTool({ workspace, settings, sandbox, identity, rules }),
    problems: choice.problem ? [choice.problem] : [],
    warnings,
  };
}
