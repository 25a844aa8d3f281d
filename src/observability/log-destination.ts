import { writeSync } from 'node:fs';

/** What pino needs of a destination, and what the server's exit path calls. */
interface LogDestination {
  write(line: string): boolean;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/** How soon a write the reader had no room for is tried again. */
const RETRY_MS = 10;
/** Bytes held while the reader does not keep up; lines past it are dropped, and counted in a line once it does. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** How long exit waits for a reader that has no room. */
const EXIT_WAIT_MS = 1_000;

function errnoCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

/**
 * JSON lines to a file descriptor (stdout by default), the lines of one
 * event-loop turn in one synchronous write at the end of the turn. A request
 * logs a line per call plus its own, so this is one system call where pino's
 * asynchronous destination made a thread-pool hop for the first line of each
 * burst and re-measured everything pending on every line (7 % of a ten-call
 * request's CPU in the bench profile, and five system calls of a one-call
 * request). Synchronous is what Node itself does for stdout on Linux, to
 * files and pipes alike; a non-blocking reader that has no room (EAGAIN)
 * gets the rest later, in order, and the event loop never waits for it.
 */
export function coalescingDestination(fd: number = process.stdout.fd, maxQueuedBytes = MAX_QUEUED_BYTES): LogDestination {
  let pending: string[] = [];
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  let closed = false;
  let scheduled = false;
  let retry: NodeJS.Timeout | undefined;

  const enqueue = (): void => {
    if (pending.length === 0) return;
    const chunk = Buffer.from(pending.length === 1 ? pending[0]! : pending.join(''), 'utf8');
    const lines = pending.length;
    pending = [];
    if (queue.length > 0 && queuedBytes + chunk.length > maxQueuedBytes) {
      dropped += lines;
      return;
    }
    queue.push(chunk);
    queuedBytes += chunk.length;
  };

  /** Writes what is queued; false when the reader has no room for the rest yet. */
  const writeQueued = (): boolean => {
    while (queue.length > 0 && !closed) {
      const head = queue[0]!;
      let written: number;
      try {
        written = writeSync(fd, head);
      } catch (err) {
        if (errnoCode(err) === 'EAGAIN') return false;
        // The reader is gone (EPIPE, EBADF...): logging stops, the gateway goes on.
        closed = true;
        break;
      }
      queuedBytes -= written;
      if (written < head.length) queue[0] = head.subarray(written);
      else queue.shift();
    }
    if (closed) {
      queue.length = 0;
      queuedBytes = 0;
      return true;
    }
    if (dropped > 0 && queue.length === 0) {
      const note = `${JSON.stringify({ level: 40, time: Date.now(), service: 'toolgate', msg: `${dropped} log lines were dropped: the reader of the log did not keep up` })}\n`;
      dropped = 0;
      queue.push(Buffer.from(note));
      queuedBytes += queue[0]!.length;
      return writeQueued();
    }
    return true;
  };

  const handOver = (): void => {
    scheduled = false;
    enqueue();
    if (retry !== undefined || writeQueued()) return;
    retry = setTimeout(() => {
      retry = undefined;
      handOver();
    }, RETRY_MS);
  };

  const flushSync = (): void => {
    scheduled = false;
    clearTimeout(retry);
    retry = undefined;
    enqueue();
    const deadline = Date.now() + EXIT_WAIT_MS;
    while (!writeQueued() && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
  };

  process.once('exit', flushSync);
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(handOver);
      }
      return true;
    },
    flush(cb) {
      handOver();
      cb?.();
    },
    flushSync,
  };
}
