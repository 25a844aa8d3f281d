import type { BashConfig } from '../../config/schema.js';
import type { PathRules } from '../../policy/index.js';
import type { Tool } from '../tool.js';
import { commandIdentity } from './identity.js';
import { keptFolders } from './mounts.js';
import { chooseSandbox, type Sandbox } from './sandbox.js';
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

/** Said at start-up for each rule for writing that the sandbox can hold only for the paths that exist (see docs/bash.md). */
const creatableWarning = (index: number) =>
  `policy.rules.${index}: inside the Bash sandbox the paths this rule denies or asks for writing are read-only where they exist, but a command that may write (approved, or allowed by a rule on Bash) can create new ones: its path pattern does not name one folder all of whose paths it covers. Write it as '^folder/' for the sandbox to keep that folder whole`;

/**
 * The Bash tool on `workspace`. Only an enabled one probes the host: it
 * chooses its sandbox by running a command in it, and finds who commands
 * run as (see commandIdentity). Its sandbox mounts `rules` (the policy's
 * rules on paths) for every command.
 */
export function setUpBash(settings: BashConfig, workspace: string, enabled: boolean, rules: PathRules): BashSetup {
  if (!enabled)
    return { tool: createBashTool({ workspace, settings, sandbox: unserved, identity: {}, rules }), problems: [], warnings: [] };
  const warnings: string[] = [];
  const { identity, warning } = commandIdentity(workspace);
  if (warning) warnings.push(warning);
  const choice = chooseSandbox(settings.sandbox, workspace, identity);
  if (choice.warning) warnings.push(choice.warning);
  if (choice.sandbox?.info.mode === 'bwrap') warnings.push(...keptFolders(rules).creatable.map(creatableWarning));
  const sandbox = choice.sandbox ?? unserved;
  return {
    tool: createBashTool({ workspace, settings, sandbox, identity, rules }),
    problems: choice.problem ? [choice.problem] : [],
    warnings,
  };
}
