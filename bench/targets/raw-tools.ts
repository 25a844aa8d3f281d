import { readdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * The bench tools done the plainest way, for the floor and the MCP peer: the
 * same file system work as toolgate's Read, Edit and Grep, without symlink
 * checks, locks or limits. Read does what toolgate's does for a small text
 * file (refuse a path outside the workspace, read it, number its lines), so
 * what toolgate spends beyond these is its own overhead.
 */
export type RawTool = (args: Record<string, unknown>, root: string) => Promise<string>;

const str = (args: Record<string, unknown>, key: string): string => {
  const value = args[key];
  if (typeof value !== 'string') throw new Error(`${key} must be a string`);
  return value;
};

export const RAW_TOOLS: Readonly<Record<string, RawTool>> = {
  async Noop(args) {
    return typeof args.echo === 'string' ? args.echo : 'ok';
  },
  async Read(args, root) {
    const file = resolve(root, str(args, 'path'));
    const inside = relative(root, file);
    if (inside === '' || inside.split(sep)[0] === '..' || isAbsolute(inside)) throw new Error('path outside the workspace');
    const lines = (await readFile(file, 'utf8')).split('\n');
    // Like `cat -n` and toolgate's Read: a final newline ends the last line rather than starting an empty one.
    if (lines.at(-1) === '') lines.pop();
    return lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n');
  },
  async Edit(args, root) {
    const file = join(root, str(args, 'path'));
    const oldString = str(args, 'old_string');
    const content = await readFile(file, 'utf8');
    const at = content.indexOf(oldString);
    if (at === -1) throw new Error('old_string not found');
    await writeFile(file, content.slice(0, at) + str(args, 'new_string') + content.slice(at + oldString.length));
    return `Replaced 1 occurrence in ${str(args, 'path')}.`;
  },
  async Grep(args, root) {
    const dir = str(args, 'path');
    const regex = new RegExp(str(args, 'pattern'));
    const matches: string[] = [];
    for (const name of (await readdir(join(root, dir))).sort()) {
      const lines = (await readFile(join(root, dir, name), 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (regex.test(line)) matches.push(`${dir}/${name}:${i + 1}:${line}`);
      });
    }
    return matches.length > 0 ? matches.join('\n') : 'No matches.';
  },
};
