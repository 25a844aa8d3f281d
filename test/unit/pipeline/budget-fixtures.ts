import { createHash } from 'node:crypto';
import type { Spill } from '../../../src/pipeline/budget.js';
import type { Payload } from '../../../src/protocol/result.js';

/** A fake spill, payload and cut-text helpers shared by the output-budget tests. */

export const KB = 1024;
export const sha256 = (content: string) => createHash('sha256').update(content, 'utf8').digest('hex');

/** A spill that records what it was given and answers with predictable ids. */
export function fakeSpill(): { spill: Spill; calls: string[] } {
  const calls: string[] = [];
  const spill: Spill = async (content) => {
    calls.push(content);
    const id = `spill-${String(calls.length).padStart(16, '0')}`;
    return { id, uri: `file:///var/spill/${id}`, bytes: Buffer.byteLength(content, 'utf8'), sha256: sha256(content) };
  };
  return { spill, calls };
}

export function ok(text: string, extra: Partial<Payload> = {}): Payload {
  return { status: 'success', text, ...extra, truncated: extra.truncated ?? null };
}

/** The kept part of a cut text and its note line (the note alone when nothing was kept). */
export function split(text: string): { kept: string; note: string } {
  const at = text.lastIndexOf('\n');
  return at === -1 ? { kept: '', note: text } : { kept: text.slice(0, at), note: text.slice(at + 1) };
}
