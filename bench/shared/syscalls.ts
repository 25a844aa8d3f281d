import { spawn, spawnSync } from 'node:child_process';

/**
 * The async resources that are a trip through libuv's thread pool: file
 * system requests (callback and promise API, and FileHandle's close), DNS
 * look-ups, zlib and the crypto jobs. A FILEHANDLE itself is not one; the
 * open that made it is an FSREQPROMISE.
 */
export const THREAD_POOL_RESOURCES: readonly string[] = [
  'FSREQCALLBACK',
  'FSREQPROMISE',
  'FILEHANDLECLOSEREQ',
  'GETADDRINFOREQWRAP',
  'GETNAMEINFOREQWRAP',
  'ZLIB',
  'RANDOMBYTESREQUEST',
  'PBKDF2REQUEST',
  'SCRYPTREQUEST',
  'HASHREQUEST',
];

/** strace is installed but could not trace the process (ptrace not permitted, say): the count is skipped, the run goes on. */
export class StraceAttachError extends Error {}

/** Why the count cannot run on this machine, or undefined when it can. */
export function straceMissing(): string | undefined {
  const probe = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  return probe.error || probe.status !== 0 ? 'no strace on PATH (apt-get install strace enables it)' : undefined;
}

/**
 * The system calls every thread of process `pid` made while `work` ran, by
 * name: `strace -c -f -p` attaches to all its threads (the event loop, the
 * thread pool, V8's), and prints the counts when it detaches on SIGINT.
 */
export async function syscallsDuring(pid: number, work: () => Promise<void>): Promise<Record<string, number>> {
  const strace = spawn('strace', ['-c', '-U', 'name,calls', '-f', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => strace.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    strace.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('attached')) resolve();
    });
    void exited.then(() => reject(new StraceAttachError(`strace exited before it attached to ${pid}: ${output.trim()}`)));
  });
  try {
    await work();
  } finally {
    strace.kill('SIGINT');
    await exited;
  }
  const counts: Record<string, number> = {};
  for (const line of output.split('\n')) {
    const row = /^(\w+)\s+(\d+)$/.exec(line.trim());
    if (row && row[1] !== 'total') counts[row[1]!] = Number(row[2]);
  }
  return counts;
}
