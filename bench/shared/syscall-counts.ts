import type { ScenarioReport, SyscallSample } from './report.js';
import { sendChecked } from './requests.js';
import type { Scenario } from './scenarios.js';
import { syscallsDuring, THREAD_POOL_RESOURCES } from './syscalls.js';
import type { Target, TargetName } from './targets.js';

/** The scenarios whose system calls and thread-pool hops are counted, on these targets. */
export const SYSCALL_SCENARIOS = ['noop', 'read4k', 'readline10'];
const SYSCALL_TARGETS: readonly TargetName[] = ['floor', 'memory'];

/** System calls (under strace) and thread-pool hops (the child's async hook) of sequential scenario requests. */
export async function countSyscalls(
  targets: readonly Target[],
  scenario: Scenario,
  sampled: number,
  log: (line: string) => void,
): Promise<ScenarioReport['syscalls']> {
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  const perRequest = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, n / sampled]));
  const counted: Partial<Record<TargetName, SyscallSample>> = {};
  for (const target of targets.filter((t) => SYSCALL_TARGETS.includes(t.name))) {
    await target.resourcesStart();
    const calls = await syscallsDuring(target.pid, async () => {
      for (let i = 0; i < sampled; i++) await sendChecked(target, scenario);
    }).catch(async (err: unknown) => {
      // When strace cannot attach (no ptrace permission), the hook must not stay on for the runs that follow.
      await target.resourcesStop();
      throw err;
    });
    const created = await target.resourcesStop();
    const pool = Object.fromEntries(Object.entries(created).filter(([type]) => THREAD_POOL_RESOURCES.includes(type)));
    counted[target.name] = {
      perRequest: sum(calls) / sampled,
      byName: perRequest(calls),
      threadPoolPerRequest: sum(pool) / sampled,
      threadPoolByType: perRequest(pool),
    };
    log(
      `${scenario.id} ${target.name}: ${(sum(calls) / sampled).toFixed(1)} system calls, ${(sum(pool) / sampled).toFixed(1)} thread-pool hops per request`,
    );
  }
  return { sampled, targets: counted };
}
