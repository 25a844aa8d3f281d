import { skipOptions, type Arg } from './options.js';
import { allow, ask, type Verdict } from './verdict.js';

/** sed: ALLOW for scripts of commands that only print; -i, -f, and the w, W and e commands or flags are ASK. */
export function judgeSed(args: readonly Arg[]): Verdict {
  if (args.some((a) => /^(-i|--in-place|-[a-zA-Z]*i)/.test(a.value ?? ''))) return ask('sed -i edits files in place');
  const { rest, taken, verdict } = skipOptions('sed', args, {
    flags: ['-n', '--quiet', '--silent', '-E', '-r', '--regexp-extended', '-s', '--separate', '-u', '--unbuffered', '-z', '--null-data', '--posix', '--debug', '--sandbox'],
    valued: ['-e', '--expression', '-l', '--line-length'],
    risky: ['-f', '--file'],
  });
  if (verdict) return verdict;
  const scripts: string[] = [];
  for (const { option, value } of taken) {
    if (option !== '-e' && option !== '--expression') continue;
    if (value === undefined) return ask('a sed script is computed at run time');
    scripts.push(value);
  }
  if (scripts.length === 0) {
    const script = rest[0]?.value;
    if (rest.length === 0) return allow('sed without a script does nothing');
    if (script === undefined) return ask('a sed script is computed at run time');
    scripts.push(script);
  }
  return scripts.every(sedPrintsOnly) ? allow('sed prints') : ask('the sed script may write files or run commands (w, W, e) or has a form the classifier does not read');
}

/** Whether a sed script is made only of commands that print or edit the stream, read without guessing. */
export function sedPrintsOnly(script: string): boolean {
  let i = 0;
  const at = () => script[i];
  const regex = (delim: string): boolean => {
    for (i++; i < script.length && at() !== delim; i++) if (at() === '\\') i++;
    if (at() !== delim) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/[0-9$]/.test(at() ?? '')) while (/[0-9$~+]/.test(at() ?? '')) i++;
    else if (at() === '/') return regex('/');
    else if (at() === '\\') {
      i++;
      return regex(at() ?? '');
    }
    return true;
  };
  while (i < script.length) {
    while (/[\s;]/.test(at() ?? '')) i++;
    if (i >= script.length) break;
    if (!address()) return false;
    if (at() === ',') {
      i++;
      if (!address()) return false;
    }
    while (/[\s!]/.test(at() ?? '')) i++;
    const cmd = at();
    i++;
    if (cmd === undefined) return false;
    if (cmd === '{') continue;
    if (cmd === 's' || cmd === 'y') {
      const delim = at();
      if (delim === undefined || delim === '\\' || delim === '\n') return false;
      if (!regex(delim)) return false;
      i--;
      if (!regex(delim)) return false;
      while (cmd === 's' && /[gpiImM0-9]/.test(at() ?? '')) i++;
    } else if (/[}pdDnNqQ=lPgGhHxzF]/.test(cmd)) {
      while (/[0-9]/.test(at() ?? '')) i++;
    } else if (/[btT:]/.test(cmd)) {
      while (i < script.length && !/[;\n]/.test(at()!)) i++;
    } else if (/[aic]/.test(cmd)) {
      while (i < script.length && at() !== '\n') i++;
    } else return false;
    while (at() === ' ' || at() === '\t') i++;
    if (i < script.length && !/[;\n}]/.test(at()!)) return false;
  }
  return true;
}
