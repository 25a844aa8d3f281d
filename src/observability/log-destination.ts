import { writeSync } from 'node:fs';

interface LogDestination {
  write(line: string): boolean;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

const RETRY_MS = 10;
/** Past it lines are dropped, and counted in a line once the reader keeps up. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
const EXIT_WAIT_MS = 1_000;

function errnoCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

/**
 * JSON lines to a file descriptor, the lines of one event-loop turn in one synchronous write at the turn's end (as
 * Node writes stdout on Linux); a reader with no room (EAGAIN) gets the rest later, in order, and the loop never waits.
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
