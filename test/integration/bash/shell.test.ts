import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../helpers/app.js';
import { callApproving, gatewayPerTest, NOBODY, runningAsRoot } from './helpers.js';

/**
 * The command runs in the shell its classification parsed it
 * as (bash, mvdan-sh's LangBash), sandboxed or not. Under /bin/sh (dash on
 * Debian) `echo $'\' ; rm -rf src ; echo pwned #'` is one ALLOWed echo to the
 * classifier and three commands to the shell, the second deleting src.
 */

const suite = gatewayPerTest();

/** A file commands could delete: owned by the user they run as. */
async function keepFile(): Promise<string> {
  const dir = join(suite.workspace, 'src');
  const file = join(dir, 'important.txt');
  await mkdir(dir, { recursive: true });
  await writeFile(file, 'data');
  if (runningAsRoot) for (const path of [dir, file]) await chown(path, NOBODY, NOBODY);
  return file;
}

describe.each(['required', 'none'])('sandbox: %s', (sandbox) => {
  const gateway = () => suite.start({ builtins: { Bash: { enabled: true, sandbox } } });

  it('the dash bypass: ALLOWed as one echo, run as one echo, nothing deleted', async () => {
    const kept = await keepFile();
    const app = await gateway();
    const { body } = await execute(app, [
      { id: 'bypass', name: 'Bash', arguments: { command: "echo $'\\' ; rm -rf src ; echo pwned #'" } },
    ]);
    // No approval asked: the classifier read one echo, and bash printed exactly its one argument.
    expect(body.results[0]).toMatchObject({ status: 'success', text: "' ; rm -rf src ; echo pwned #\n" });
    expect(await readFile(kept, 'utf8')).toBe('data');
  });

  it.each([
    ["echo $'a\\tb'", 'a\tb\n'],
    ['[[ -n x && 2 -gt 1 ]] && echo yes', 'yes\n'],
    ['((n = 2 + 3)); echo $n', '5\n'],
    ['a=(x y z); echo ${#a[@]}', '3\n'],
    ['echo {1..3}', '1 2 3\n'],
    // extglob, as LangBash always parses it: bash without it fails on the first, runs the second as `! (echo RAN)`.
    ['echo @(a|b)', '@(a|b)\n'],
    ['x=!(echo RAN); echo "$x"', '!(echo RAN)\n'],
  ])('bash, not dash: %s', async (command, text) => {
    const app = await gateway();
    expect((await callApproving(app, 'Bash', { command })).body.results[0]).toMatchObject({ status: 'success', text });
  });

  it('no profile, rc file, BASH_ENV or ENV, and HOME is not the workspace: a .bashrc there is not read', async () => {
    await writeFile(join(suite.workspace, '.bashrc'), 'echo FROM-RC\n');
    await writeFile(join(suite.workspace, '.profile'), 'echo FROM-PROFILE\n');
    const app = await gateway();
    const { body } = await callApproving(app, 'Bash', {
      command: 'echo "${BASH_ENV-none} ${ENV-none}"; echo "$HOME"; shopt -q login_shell || echo not-login',
    });
    const [envs, home, login] = (body.results[0].text as string).split('\n');
    expect(body.results[0].status).toBe('success');
    expect([envs, login]).toEqual(['none none', 'not-login']);
    expect(home).not.toContain(suite.workspace);
  });
});
