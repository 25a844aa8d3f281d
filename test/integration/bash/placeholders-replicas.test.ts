import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { executeAt, isolated, scratch, startGateway, TEST_MS, useGatewayScratch, writeConfig } from '../server-harness.js';
import { NOBODY, runningAsRoot } from './helpers.js';

/**
 * Rule: a protected file that is missing cannot be made by a command,
 * whichever process runs it. Two real gateway processes on one Redis and one
 * workspace, bubblewrap required, every command ALLOW: a command on one
 * stands on a placeholder while a command on the other ends. Removing the
 * placeholder there would detach the first command's mount (Linux 3.18 and
 * later), so with the state in Redis a placeholder stays (docs/bash.md).
 */

useGatewayScratch();

const CONFIG = `audit: false
builtins:
  Bash: { enabled: true, sandbox: required }
policy:
  rules:
    - { tool: Bash, when: { command: '.*' }, decision: allow }
`;

describe('placeholders shared by commands on two gateway processes', () => {
  it(
    "one process's command ending does not open the wall for the other's: no .bash_logout is made, the placeholder stays empty",
    async () => {
      const workspace = join(scratch, 'ws');
      await mkdir(workspace);
      await writeFile(join(workspace, 'f.txt'), 'plain\n');
      // As root, commands run as nobody, who must reach the workspace through the scratch folder.
      if (runningAsRoot) execFileSync('chmod', ['755', scratch]);
      if (runningAsRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, workspace]);
      const env = isolated({
        REDIS_URL: inject('redisUrl'),
        TOOLGATE_REDIS_PREFIX: `ph-${Date.now()}`,
        TOOLGATE_CONFIG: await writeConfig(CONFIG),
      });
      const [a, b] = await Promise.all([startGateway(env).ready, startGateway(env).ready]);
      const bash = (address: string, id: string, command: string) =>
        executeAt(address, 'agent', [{ id, name: 'Bash', arguments: { command } }]).then(([result]) => String(result!.text));
      const slow = bash(a.address, 'slow', 'sleep 2; echo x > .bash_logout; echo status=$?');
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await bash(b.address, 'quick', 'echo quick > quick.txt; rm quick.txt; echo done')).toBe('done\n');
      expect(await slow).toMatch(/status=1/);
      expect(await readFile(join(workspace, '.bash_logout'), 'utf8')).toBe('');
    },
    TEST_MS,
  );
});
