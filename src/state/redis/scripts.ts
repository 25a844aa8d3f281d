import { readFileSync } from 'node:fs';
import { ADMISSION_CONSTANTS } from '../admission-constants.js';

export const SCRIPTS = ['admit', 'settle', 'unprobe', 'index', 'claim', 'complete', 'release', 'decide', 'decided', 'hit'] as const;
export type ScriptName = (typeof SCRIPTS)[number];
/** The client command a script is defined as on the connection. */
export type ScriptCommandName = `toolgate_${ScriptName}`;
export const scriptCommand = (name: ScriptName): ScriptCommandName => `toolgate_${name}`;

/** `--- @include "includes/breaker"`: a path relative to the file the line is in, `.lua` implied (bullmq's spelling). */
const INCLUDE = /^---[ \t]*@include[ \t]+"([^"]+)"[ \t]*$/;
/** `--- @constants`: the admission constants, as Lua locals. */
const CONSTANTS = /^---[ \t]*@constants[ \t]*$/;

/**
 * One script as Redis runs it: every `@include` line replaced by the text of
 * the file it names (expanded in turn), and the `@constants` line by one
 * `local NAME = value` per constant, so the Lua numbers are the TypeScript
 * ones. Each include and the constants are written once per script, where
 * first named; a later mention expands to nothing, so two transitions can
 * both name a helper they share. The result is one script, loaded with one
 * EVALSHA as before.
 */
export function expandScript(file: URL, constants: Readonly<Record<string, number>> = ADMISSION_CONSTANTS): string {
  const written = new Set<string>([file.href]);
  const expand = (url: URL): string =>
    readFileSync(url, 'utf8')
      .split('\n')
      .map((line) => {
        const include = INCLUDE.exec(line);
        if (include) {
          const target = new URL(include[1]!.endsWith('.lua') ? include[1]! : `${include[1]}.lua`, url);
          if (written.has(target.href)) return '';
          written.add(target.href);
          return expand(target);
        }
        if (CONSTANTS.test(line)) {
          if (written.has('@constants')) return '';
          written.add('@constants');
          return Object.entries(constants)
            .map(([name, value]) => `local ${name} = ${value}`)
            .join('\n');
        }
        return line;
      })
      .join('\n');
  return expand(file);
}

let sources: Record<ScriptName, string> | undefined;

/** Read when the first store is made, so importing the store costs nothing where Redis is not configured. */
export function luaSources(): Record<ScriptName, string> {
  sources ??= Object.fromEntries(SCRIPTS.map((name) => [name, expandScript(new URL(`./lua/${name}.lua`, import.meta.url))])) as Record<
    ScriptName,
    string
  >;
  return sources;
}
