import { toolNameMatcher } from '../policy/index.js';

/**
 * `?defer=`: comma-separated tool names or globs to defer (`*`: all); a
 * pattern starting with `!` keeps the tools it matches loaded whatever the
 * others say (`*,!Read,!Grep`).
 */
export function deferMatcher(spec: string): (name: string) => boolean {
  const patterns = spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const defer = patterns.filter((p) => !p.startsWith('!')).map(toolNameMatcher);
  const keep = patterns.filter((p) => p.startsWith('!')).map((p) => toolNameMatcher(p.slice(1)));
  return (name) => defer.some((m) => m(name)) && !keep.some((m) => m(name));
}
