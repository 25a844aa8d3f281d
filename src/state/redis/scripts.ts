import { readFileSync } from 'node:fs';
import { ADMISSION_CONSTANTS } from '../admission-constants.js';

export const SCRIPTS = [
  'admit',
  'settle',
  'unprobe',
  'index',
  'claim',
  'complete',
  'release',
  'decide',
  'decided',
  'hit',
  'file-lock',
  'file-unlock',
  'grant-put',
  'grant-unlease',
  'link-put',
] as const;
export type ScriptName = (typeof SCRIPTS)[number];
export type ScriptCommandName = `toolgate_${ScriptName}`;
export const scriptCommand = (name: ScriptName): ScriptCommandName => `toolgate_${name}`;

/** `--- @include "includes/breaker"`: a path relative to the file the line is in, `.lua` implied (bullmq's spelling). */
const INCLUDE = /^---[ \t]*@include[ \t]+"([^"]+)"[ \t]*$/;
/** `--- @constants`: the admission constants, as Lua locals. */
const CONSTANTS = /^---[ \t]*@constants[ \t]*$/;

/** `@include` and `@constants` lines expanded, each once per script where first named. */
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
