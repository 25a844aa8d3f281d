import type { BashConfig } from '../../config/schema.js';
import type { PathRules } from '../../policy/index.js';
import { keptFolders } from './mounts.js';

/*
 * What the sandbox's mount plan (mounts.ts) cannot hold of the policy's rules
 * on paths, said at start-up rule by rule, so that no rule is silently weaker
 * inside the sandbox than at the file tools (docs/bash.md, "How a rule
 * becomes a mount").
 */

/** A rule for writing that the sandbox can hold only for the paths that exist. */
const creatable = (index: number) =>
  `policy.rules.${index}: inside the Bash sandbox the paths this rule denies or asks for writing are read-only where they exist, but a command that may write (approved, or allowed by a rule on Bash) can create new ones: its path pattern does not name one folder all of whose paths it covers. Write it as '^folder/' for the sandbox to keep that folder whole`;

/** A rule that also tests another argument: it decides its own tools' calls, and no mount. */
const notMounted = (index: number) =>
  `policy.rules.${index}: its when tests another argument besides path, so it decides only calls carrying that argument: inside the Bash sandbox it masks nothing and makes nothing read-only, and Bash commands are judged by the classifier and the rules on Bash alone. Add a rule on path alone for the sandbox to hold it`;

/** A pattern whose literal start no workspace path as the walk spells it has (`/…`, `./…`, `…/../…`). */
const unwalkable = (index: number, prefix: string) =>
  `policy.rules.${index}: its path pattern starts '${prefix}', a spelling the Bash sandbox never tests: the sandbox walks the workspace naming each path from its root, without a leading '/', './' or a '..', so inside the sandbox this rule masks nothing and makes nothing read-only (Bash commands are left to the classifier). Write the path relative to the workspace ('^secrets/')`;

/** An unanchored pattern spanning folders: a link's name is not tested for it. */
const unanchored = (index: number) =>
  `policy.rules.${index}: its path pattern is not anchored ('^…') and spans folders: inside the Bash sandbox it holds for each path by where it really is, and through a directory link (conf -> envs/production) only where the target's own path matches too. Anchor it ('^conf/prod\\.yml$') for the sandbox to follow links that name it`;

const visibleHistory =
  "builtins.Bash.git_history is visible: inside the sandbox every repository's object store and index can be read, so a file a policy rule masks can be read from the history or the index (git show HEAD:path) by any command that runs without an approval";

/** Whether a literal start names what no walked path starts with. */
const offTheWalk = (prefix: string) =>
  prefix.startsWith('/') || prefix.startsWith('./') || prefix.startsWith('../') || /(^|\/)\.\.?\/|\/\//.test(prefix);

/** A pattern that, once its usual "at the start or after a /" and "at the end or before a /" groups are taken out, still holds a `/`. */
const spansFolders = (pattern: string) => pattern.replace(/\((\?:)?\^\|\/\)|\((\?:)?\/\|\$\)/g, '').includes('/');

/** The start-up warnings of the sandbox's mounts under `rules` and `settings`. */
export function mountWarnings(rules: PathRules, settings: BashConfig): string[] {
  const warnings = [
    ...rules.notMounted.map(notMounted),
    ...rules.sandboxRules.flatMap((rule) => {
      if (rule.shape.prefix !== undefined) return offTheWalk(rule.shape.prefix) ? [unwalkable(rule.index, rule.shape.prefix)] : [];
      return spansFolders(rule.pattern) ? [unanchored(rule.index)] : [];
    }),
    ...keptFolders(rules).creatable.map(creatable),
  ];
  if (settings.git_history === 'visible' && rules.mayMatchBelow('read', '')) warnings.push(visibleHistory);
  return [...new Set(warnings)];
}
