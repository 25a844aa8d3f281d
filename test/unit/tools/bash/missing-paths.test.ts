import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingFolders } from '../../../../src/tools/bash/missing-paths.js';

describe('the folders a rule for writing keeps before they exist', () => {
  it('each gets its shallowest missing folder; one that exists needs none, and nothing is made under a file', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'toolgate-missing-'));
    await mkdir(join(workspace, 'build'));
    await mkdir(join(workspace, 'deploy'));
    await writeFile(join(workspace, 'notes'), '');
    expect((await missingFolders(workspace, ['build/out/js', 'deploy', 'dist/x', 'notes/sub'])).sort()).toEqual(['build/out', 'dist']);
  });
});
