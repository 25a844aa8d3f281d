import type { Arg } from './options.js';
import { allow, ask, deny, type Verdict } from './verdict.js';

/**
 * /proc: without the sandbox a command runs as the gateway's user and could read the gateway's environment; see docs/bash.md, "The
 * gateway's own process".
 */

/**
 * `environ` as a path segment: a process's environment, however the path got there (`/proc/*\/environ`, `cd /proc; cat 1/environ`,
 * `cd $PPID; cat environ`).
 */
const ENVIRON = /(^|\/)environ(?![\w.-])/;
const MEM = /\/proc\/.*\bmem(?![\w.-])/;
const PER_PROCESS = /\/proc\/+([^/]*)(\/.*)?$/;
const HARMLESS = new Set(
  'stat status statm cmdline comm limits cgroup io oom_score oom_score_adj wchan sched schedstat loginuid sessionid'.split(' '),
);

/** A word or a redirection's target, as its value or (computed) its literal parts. */
export function judgeProcPath(word: string, computed: boolean): Verdict | undefined {
  // An option's attached value (`--files0-from=/proc/…`, `-f/proc/…`) is a path as well.
  const slash = word.indexOf('/');
  const written = word.startsWith('-') && slash > 0 ? word.slice(slash) : word;
  // Quotes and escapes inside a word only the run time knows (`env''iron`) do not change the name it makes.
  const text = throughProc(computed ? written.replace(/["'\\]/g, '') : written);
  if (ENVIRON.test(text)) return deny(`${written} names a process's environment, where the gateway's secrets are`);
  if (MEM.test(text)) return deny(`${written} names a process's memory`);
  if (computed && mayNameProc(written))
    return ask(`${written} is a pattern or expansion that may name /proc, where processes' environments are`);
  if (/^\/+proc\/*$/.test(text)) return ask(`${text} holds every process's folder`);
  const m = PER_PROCESS.exec(text);
  if (!m) return undefined;
  const [, pid, rest = ''] = m;
  // System-wide entries are lower-case names (cpuinfo, sys, net); anything else may name a process (`/proc/%s/` built by printf).
  if (!computed && /^[a-z_]+$/.test(pid!) && pid !== 'self') return undefined;
  const file = rest
    .replace(/^\/task\/[^/]+/, '')
    .split('/')
    .filter(Boolean);
  if (file.length === 1 && HARMLESS.has(file[0]!)) return undefined;
  return ask(`${text} reads into a process's /proc folder`);
}

/** Names of /proc/self/fd and its entries: `/dev/fd/../..` is /proc. */
const FD_ALIASES: Array<[RegExp, string]> = [
  [/^\/+dev\/+fd(?=\/|$)/, '/proc/self/fd'],
  [/^\/+dev\/+std(in|out|err)(?=\/|$)/, '/proc/self/fd/0'],
];

/**
 * An absolute path as it reaches /proc: /dev/fd spelled as /proc/self/fd, `.` and `..` resolved by name (the links inside /proc lead back
 * into it).
 */
function throughProc(path: string): string {
  if (!path.startsWith('/')) return path;
  let text = path;
  for (const [alias, real] of FD_ALIASES) text = text.replace(alias, real);
  const out: string[] = [];
  for (const part of text.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}${text.endsWith('/') && out.length > 0 ? '/' : ''}`;
}

/** Whether an absolute word only the run time knows (a glob, an expansion) may name /proc. */
function mayNameProc(written: string): boolean {
  const source = written.replace(/["']/g, '');
  if (!source.startsWith('/')) return false;
  const first = source.slice(1).split('/')[0]!;
  if (first === '') return false;
  // Expansions and braces may be anything; a glob's classes and wildcards match as they say.
  const pattern = first
    .replace(/\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_0-9@*#?$!-]*|`[^`]*`|\{[^}]*\}/g, '*')
    .replace(/[.+^|()\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
    .replace(/\[!/g, '[^');
  try {
    return new RegExp(`^${pattern}$`).test('proc') || new RegExp(`^${pattern}$`).test('dev');
  } catch {
    return true;
  }
}

/**
 * ps options taking a value (the rest of the cluster or the next word), UNIX (`-o`) and BSD (`o`) style: BSD `u` is a format, not a user.
 */
const PS_VALUED = { unix: 'oOpuUgGtCqs', bsd: 'oOpUtkq' };
const PS_LONG_VALUED = /^--(format|sort|pid|ppid|quick-pid|user|User|group|Group|tty|sid|cols|columns|rows|lines|width|context)$/;

/** ps: ALLOW, except what shows a process's environment (DENY). */
export function judgePs(args: readonly Arg[]): Verdict {
  for (const { value } of args) {
    if (value === undefined) return ask('an argument of ps is computed at run time and could show environments');
    if (/env/i.test(value)) return deny(`ps ${value} shows processes' environments, the gateway's secrets among them`);
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!.value!;
    if (word.startsWith('--')) {
      if (PS_LONG_VALUED.test(word)) i++;
      continue;
    }
    const bsd = !word.startsWith('-');
    const letters = bsd ? word : word.slice(1);
    for (let k = 0; k < letters.length; k++) {
      const c = letters[k]!;
      // BSD e, and -E where ps is BSD's (procps refuses it).
      if ((bsd && c === 'e') || c === 'E') return deny(`ps ${word} shows processes' environments, the gateway's secrets among them`);
      if (PS_VALUED[bsd ? 'bsd' : 'unix'].includes(c)) {
        if (k === letters.length - 1) i++;
        break;
      }
    }
  }
  return allow('ps lists processes');
}

/** `/`, `//`, `/.`, `/..`: the root, from where a recursive read reaches /proc; and /proc itself. */
const ROOT_OR_PROC = /^\/+((\.\.?|proc)(\/+|$))*$/;

/** A recursive read from the root or /proc reaches every process's environ: ASK. */
export function judgeRootRead(name: string, args: readonly Arg[], recursive: boolean): Verdict | undefined {
  const words = args.map((a) => (a.value === undefined ? undefined : throughProc(a.value)));
  recursive ||= words.some(
    (w, i) =>
      w !== undefined &&
      (/^-[a-zA-Z]*[rR]/.test(w) ||
        /^--(recursive|dereference-recursive|directories=recurse)$/.test(w) ||
        (w === '-d' && words[i + 1] === 'recurse')),
  );
  const root = words.find((w) => w !== undefined && ROOT_OR_PROC.test(w));
  return recursive && root ? ask(`${name} ${root} reads through /proc, where processes' environments are`) : undefined;
}
