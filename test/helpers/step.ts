/** `work` within `ms`, or an error naming the step, so a slow step fails with its own name and not a test's timeout. */
export async function step<T>(name: string, ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}
