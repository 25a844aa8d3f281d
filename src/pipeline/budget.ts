/**
 * The output budgets, per call and per batch, count the UTF-8 bytes of payloadJson (docs/api.md, output budgets and spill).
 * - A cut keeps `status` (`partial` unless `error`), `error` and the whole lines of `text` that fit, with a last note line
 *   (cut-text.ts); `data` stays while the payload with an empty text still fits.
 * - A payload is spilled at most once, before its first cut, whole text included; a later cut reuses the record. One that
 *   already has a record is cut against it and gets its note within budget; a failed spill still yields a record.
 * - `content` counts as it is serialized. A cut leaves out the text parts (the text they place is cut) and then, last first, the blocks
 *   without an inline payload (resource links, blocks already moved to the spill store) that do not fit beside TEXT_ROOM_BYTES of
 *   text; so that nothing is lost, the spilled output is the whole text followed by one line per such block (see spilledOutput).
 *   Inline blocks stay: the budgets move them first (content-budget.ts).
 * - A payload whose minimum (status, error, inline blocks, record) is over the target is cut to that minimum and stays over.
 * Only the payload's fields are measured and returned, so nothing else of a result leaks into a tool message.
 */
import { payloadJson, payloadOf, type Payload, type TruncationRecord } from '../protocol/result.js';
import { isSpillFailure, type SpillOutcome } from '../spill/spill-store.js';
import type { SpillBytes } from '../tools/content.js';
import { isInline, isTextPart, type ContentBlock } from '../protocol/content.js';
import { blockText } from '../protocol/providers/native-content.js';
import { MAX_INLINE_IMAGES } from '../tools/content.js';
import { capImages, contentBytes, countImages, fitContent, TEXT_ROOM_BYTES } from './content-budget.js';
import { cutText, hasNote, literalBytes, type ResumeHint } from './cut-text.js';

/** Stores one whole output in the spill store, for the caller's tenant; a store failure is an outcome, never a rejection. */
export type Spill = (content: string) => Promise<SpillOutcome>;

/** What `spill_error` tells the model: nothing of the store's own error, which goes to the log. */
export const SPILL_ERROR = 'The spill store is unavailable: the output was cut to the budget and the rest was not kept.';

/** The `truncated` record of a spill; a failed one has no uri nor url and a `spill_error`, and the payload is cut all the same. */
export function truncationRecord(outcome: SpillOutcome): TruncationRecord {
  if (isSpillFailure(outcome))
    return { original_bytes: outcome.bytes, uri: null, url: null, sha256: outcome.sha256, spill_error: SPILL_ERROR };
  return { original_bytes: outcome.bytes, uri: outcome.uri, url: `/outputs/${outcome.id}`, sha256: outcome.sha256 };
}

/** What a cut payload's spill holds: its whole text, then each block a cut may leave out, one JSON line each, as the payload names it. */
function spilledOutput(payload: Payload): string {
  const lines = (payload.content ?? []).filter(isDroppable).map(blockText);
  return lines.length === 0 ? payload.text : [payload.text, ...lines].join('\n');
}

/** A block a cut may leave out: one without an inline payload, which the spilled output keeps as a line; text parts are in the text. */
function isDroppable(block: ContentBlock): boolean {
  return !isInline(block) && !isTextPart(block);
}

export function payloadBytes(payload: Payload): number {
  return Buffer.byteLength(payloadJson(payload), 'utf8');
}

/** Cuts one payload over `budgetBytes`, spilling its whole output unless it has a record; `json`: the payload as kept whole. */
export async function applyCallBudget(
  payload: Payload,
  budgetBytes: number,
  spill: Spill,
  hint?: ResumeHint,
): Promise<{ payload: Payload; bytes: number; spilledBytes: number; json?: string }> {
  payload = payloadOf(payload);
  const json = payloadJson(payload);
  const bytes = Buffer.byteLength(json, 'utf8');
  const unnoted = payload.truncated !== null && !hasNote(payload.text, payload.truncated);
  if (bytes <= budgetBytes && !unnoted) return { payload, bytes, spilledBytes: 0, json };
  let record = payload.truncated;
  let spilledBytes = 0;
  if (!record) {
    const spilled = await spill(spilledOutput(payload));
    record = truncationRecord(spilled);
    spilledBytes = isSpillFailure(spilled) ? 0 : spilled.bytes;
  }
  return { ...cutToFit(payload, record, budgetBytes, hint), spilledBytes };
}

/** Fits a batch's payloads into `budgetBytes` together: every payload over the highest cap that fits is cut to it. */
export async function applyBatchBudget(
  payloads: Payload[],
  budgetBytes: number,
  spill: Spill,
  hints: readonly (ResumeHint | undefined)[] = [],
  known?: readonly number[],
): Promise<{ payloads: Payload[]; spilledBytes: number; cut: number }> {
  payloads = payloads.map(payloadOf);
  const sizes = known ? [...known] : payloads.map(payloadBytes);
  if (withinBudget(sizes, budgetBytes)) return { payloads, spilledBytes: 0, cut: 0 };
  const records = payloads.map((p) => p.truncated);
  // Until a payload is spilled its minimum is a lower bound; spilling raises minimums, and each round spills one more payload.
  const floors = payloads.map((p, i) => payloadBytes(shell(p, records[i] ?? null, false, 0)));
  let spilledBytes = 0;
  for (;;) {
    const cap = waterLevel(sizes, floors, budgetBytes);
    const over = sizes.flatMap((size, i) => (size > Math.max(cap, floors[i]!) ? [i] : []));
    const unspilled = over.filter((i) => records[i] === null);
    if (unspilled.length === 0) {
      const result = payloads.slice();
      for (const i of over) result[i] = cutToFit(payloads[i]!, records[i]!, cap, hints[i]).payload;
      return { payloads: result, spilledBytes, cut: over.length };
    }
    const spilled = await Promise.all(unspilled.map((i) => spill(spilledOutput(payloads[i]!))));
    unspilled.forEach((i, k) => {
      const record = truncationRecord(spilled[k]!);
      records[i] = record;
      floors[i] = payloadBytes(shell(payloads[i]!, record, false, 0));
      if (record.uri !== null) spilledBytes += record.original_bytes;
    });
  }
}

function withinBudget(sizes: readonly number[], budgetBytes: number): boolean {
  return sizes.reduce((a, b) => a + b, 0) <= budgetBytes;
}

/** What only a batch over its budget needs: the tenant's spill and each payload's resume hint, made only then (most batches fit). */
interface BatchCutting {
  spill: Spill & SpillBytes;
  hints: readonly (ResumeHint | undefined)[];
}

/**
 * The batch budget over a request's payloads: undefined when within it and within MAX_INLINE_IMAGES; else the images past it moved, the
 * blocks fitted, then the texts cut.
 */
export async function fitBatch(
  payloads: Payload[],
  json: readonly string[],
  budgetBytes: number,
  cutting: () => BatchCutting,
): Promise<{ payloads: Payload[]; json: string[] } | undefined> {
  let fitted: { payloads: Payload[]; json: string[] } | undefined;
  if (countImages(payloads) > MAX_INLINE_IMAGES) {
    payloads = await capImages(payloads, cutting().spill);
    fitted = { payloads, json: payloads.map(payloadJson) };
  }
  let sizes = (fitted?.json ?? json).map(utf8Bytes);
  let blocks = payloads.reduce((sum, p) => sum + contentBytes(p), 0);
  if (withinBudget(sizes, budgetBytes - blocks)) return fitted;
  const { spill, hints } = cutting();
  if (blocks > 0) {
    payloads = await fitContent(payloads, sizes, budgetBytes, spill);
    fitted = { payloads, json: payloads.map(payloadJson) };
    sizes = fitted.json.map(utf8Bytes);
    blocks = payloads.reduce((sum, p) => sum + contentBytes(p), 0);
  }
  const batch = await applyBatchBudget(payloads, budgetBytes - blocks, spill, hints, sizes);
  if (batch.cut > 0) return { payloads: batch.payloads, json: batch.payloads.map(payloadJson) };
  return fitted;
}

function utf8Bytes(json: string): number {
  return Buffer.byteLength(json, 'utf8');
}

/** Largest cap whose capped sizes fit the budget; 0 when even every minimum together does not. */
function waterLevel(sizes: number[], floors: number[], budget: number): number {
  const total = (cap: number) => sizes.reduce((sum, size, i) => sum + Math.min(size, Math.max(cap, floors[i]!)), 0);
  let lo = 0;
  let hi = sizes.reduce((a, b) => Math.max(a, b), 0);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (total(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The payload as cut, with an empty text, its inline blocks and the first `blocks` droppable ones (all when omitted), in their order;
 * spreading keeps the caller's key order.
 */
function shell(payload: Payload, truncated: TruncationRecord | null, keepData: boolean, blocks = Infinity): Payload {
  const { data, content, ...rest } = payload;
  const status = payload.status === 'error' ? 'error' : 'partial';
  const cut: Payload =
    keepData && data !== undefined ? { ...payload, status, text: '', truncated } : { ...rest, status, text: '', truncated };
  if (content === undefined) return cut;
  let kept = 0;
  const left = content.filter((block) => !isTextPart(block) && (!isDroppable(block) || kept++ < blocks));
  if (left.length > 0) cut.content = left;
  else delete cut.content;
  return cut;
}

/** The serialized size of `""`, counted in a shell's size and replaced by the kept text's. */
const EMPTY_TEXT_BYTES = 2;

/** How many droppable blocks fit in a shell within `target`, TEXT_ROOM_BYTES left for the text (first first). */
function blocksThatFit(payload: Payload, record: TruncationRecord, target: number): number {
  let room = target - TEXT_ROOM_BYTES - payloadBytes(shell(payload, record, false, 0));
  let kept = 0;
  for (const block of payload.content ?? []) {
    if (!isDroppable(block)) continue;
    room -= Buffer.byteLength(blockText(block), 'utf8') + 1;
    if (room < 0) break;
    kept++;
  }
  return kept;
}

function cutToFit(
  payload: Payload,
  record: TruncationRecord,
  target: number,
  hint: ResumeHint | undefined,
): { payload: Payload; bytes: number } {
  let cut = shell(payload, record, true);
  let base = payloadBytes(cut);
  if (base > target && payload.data !== undefined) {
    cut = shell(payload, record, false);
    base = payloadBytes(cut);
  }
  if (base > target) {
    cut = shell(payload, record, false, blocksThatFit(payload, record, target));
    base = payloadBytes(cut);
  }
  const text = cutText(payload.text, target - base + EMPTY_TEXT_BYTES, record, hint);
  return { payload: { ...cut, text }, bytes: base - EMPTY_TEXT_BYTES + literalBytes(text) };
}
