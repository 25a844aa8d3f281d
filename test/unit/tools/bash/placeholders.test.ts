import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SELF_COMMONDIR } from '../../../../src/tools/bash/git-dirs.js';
import { hold, isHeld, release } from '../../../../src/tools/bash/placeholders.js';

describe('placeholders of missing protected paths', () => {
  it('stay while a command stands on them; the last one leaving removes what is still a placeholder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-placeholders-'));
    const [file, folder, commondir] = ['.bashrc', 'hooks', 'commondir'].map((name) => join(dir, name));
    await writeFile(file!, '');
    await mkdir(folder!);
    await writeFile(commondir!, SELF_COMMONDIR);
    hold([file!, folder!, commondir!]);
    hold([file!]);
    await release([file!, folder!, commondir!], true);
    expect(isHeld(file!)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['.bashrc']);
    await release([file!], true);
    expect(isHeld(file!)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('what a person wrote there since is left, and nothing is removed where other processes share the workspace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-placeholders-'));
    const [written, shared] = ['.profile', '.zshrc'].map((name) => join(dir, name));
    await writeFile(written!, 'export A=1\n');
    await writeFile(shared!, '');
    hold([written!, shared!]);
    await release([written!], true);
    await release([shared!], false);
    expect((await readdir(dir)).sort()).toEqual(['.profile', '.zshrc']);
  });
});
