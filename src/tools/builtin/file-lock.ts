/** The tail of each file's queue of writers, by real path; absent when nobody holds or waits for it. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `work` once every earlier `withFileLock` of the same real path in this
 * process has finished. Write and Edit check the file's stamp and then rename
 * over it with awaits in between; without this, concurrent writers of one
 * file all pass the check before any renames, and all but the last change
 * are lost while every caller is told it succeeded. (Replicas that share a
 * workspace directory still rely on the stamp check alone.)
 */
export async function withFileLock<T>(real: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(real) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(real, tail);
  try {
    await previous;
    return await work();
  } finally {
    release();
    if (tails.get(real) === tail) tails.delete(real);
  }
}
