import { formatPatch, structuredPatch } from 'diff';

const DIFF_MAX_BYTES = 200 * 1024;

/** The diff runs on the event loop; past this the change is shown as all old lines removed, all new added (still a true diff). */
const DIFF_TIMEOUT_MS = 100;

const CONTEXT_LINES = 3;

interface ShownDiff {
  diff: string;
  truncated: boolean;
  note?: string;
}

function marked(text: string, mark: '+' | '-'): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const complete = text.endsWith('\n');
  if (complete) lines.pop();
  const out = lines.map((line) => `${mark}${line}`);
  if (!complete) out.push('\\ No newline at end of file');
  return out;
}

function wholeReplacement(oldName: string, newName: string, before: string, after: string): string {
  const removed = marked(before, '-');
  const added = marked(after, '+');
  const count = (lines: string[]) => lines.filter((l) => !l.startsWith('\\')).length;
  const range = (n: number) => (n === 0 ? '0,0' : `1,${n}`);
  return [`--- ${oldName}`, `+++ ${newName}`, `@@ -${range(count(removed))} +${range(count(added))} @@`, ...removed, ...added, ''].join(
    '\n',
  );
}

function bounded(diff: string): ShownDiff {
  const bytes = Buffer.byteLength(diff);
  if (bytes <= DIFF_MAX_BYTES) return { diff, truncated: false };
  const head = Buffer.from(diff).subarray(0, DIFF_MAX_BYTES).toString('utf8');
  const cut = head.slice(0, head.lastIndexOf('\n') + 1);
  return {
    diff: cut,
    truncated: true,
    note: `The diff is ${bytes} bytes; only its first ${Buffer.byteLength(cut)} are shown. The call's arguments hold the whole change.`,
  };
}

/** 3 lines of context, git's a/ and b/ names, /dev/null for a file that does not exist (`before` null). */
export function unifiedDiff(path: string, before: string | null, after: string): ShownDiff {
  const oldName = before === null ? '/dev/null' : `a/${path}`;
  const newName = `b/${path}`;
  const old = before ?? '';
  const patch = structuredPatch(oldName, newName, old, after, undefined, undefined, { context: CONTEXT_LINES, timeout: DIFF_TIMEOUT_MS });
  if (patch === undefined) return bounded(wholeReplacement(oldName, newName, old, after));
  if (patch.hunks.length === 0) return { diff: '', truncated: false, note: 'The call would leave the file as it is.' };
  return bounded(formatPatch(patch).replace(/^=+\n/, ''));
}
