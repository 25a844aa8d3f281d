import { deny, type Verdict } from './verdict.js';

/** Variables that change which program a name runs or what a program runs on its own: DENY to set. */
const DANGEROUS_VARS = new Set([
  'PATH',
  'IFS',
  'BASH_ENV',
  'ENV',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'XDG_CONFIG_DIRS',
  'XDG_DATA_DIRS',
  // gpg's home: gpg.conf and dirmngr.conf there name programs gpg runs.
  'GNUPGHOME',
  'CDPATH',
  'PAGER',
  'EDITOR',
  'VISUAL',
  'MANPAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'NODE_OPTIONS',
  'PERL5OPT',
  'PYTHONSTARTUP',
  'RUBYOPT',
  'GLOBIGNORE',
  // BASH_CMDS[ls]=/bin/rm makes `ls` run rm, without `hash`; BASH_ALIASES defines aliases without `alias`.
  'BASH_CMDS',
  'BASH_ALIASES',
  'BASH_LOADABLES_PATH',
  'EXECIGNORE',
  'SHELL',
  'RIPGREP_CONFIG_PATH',
  // glibc loads character-set converters (iconv, git log --encoding) and locales from these: shared objects from the workspace.
  'GCONV_PATH',
  'LOCPATH',
  'NLSPATH',
]);
const DANGEROUS_PREFIXES = ['LD_', 'DYLD_', 'GIT_', 'BASH_FUNC_'];

/** Whether setting this variable is DENY, with why. */
export function dangerousVariable(name: string): Verdict | undefined {
  if (DANGEROUS_VARS.has(name) || DANGEROUS_PREFIXES.some((p) => name.startsWith(p))) {
    return deny(`setting ${name} changes which programs run or what they run`);
  }
  return undefined;
}
