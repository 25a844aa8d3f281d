/**
 * Which keywords a text holds, in any case, in one pass: an Aho-Corasick automaton as a transition table, run in four
 * interleaved lanes over the text's bytes. Keywords are printable ASCII; any other character restarts the match.
 */
export interface KeywordIndex {
  find(text: string, from?: number): number[];
}

/** Parts overlap by the longest keyword, so none is missed across two. */
const CHUNK = 64 * 1024;

const WIDE = /[\u0100-\uffff]/;

export function createKeywordIndex(keywords: readonly string[]): KeywordIndex {
  const words = keywords.map((keyword) => {
    const lower = keyword.toLowerCase();
    if (!/^[\x20-\x7e]+$/.test(lower)) throw new Error(`the keyword ${JSON.stringify(keyword)} is not printable ASCII`);
    return lower;
  });
  // Bytes map to classes: one per character some keyword holds (a letter's two cases one), 0 for every other.
  const classOf = new Uint8Array(256);
  let classes = 1;
  for (const word of words) for (const c of word) if (classOf[c.charCodeAt(0)] === 0) classOf[c.charCodeAt(0)] = classes++;
  for (let c = 65; c <= 90; c++) classOf[c] = classOf[c + 32]!;
  const goto: number[][] = [new Array<number>(classes).fill(-1)];
  const ends: number[][] = [[]];
  words.forEach((word, index) => {
    let state = 0;
    for (const c of word) {
      const k = classOf[c.charCodeAt(0)]!;
      if (goto[state]![k]! < 0) {
        goto[state]![k] = goto.length;
        goto.push(new Array<number>(classes).fill(-1));
        ends.push([]);
      }
      state = goto[state]![k]!;
    }
    ends[state]!.push(index);
  });
  const fail = new Array<number>(goto.length).fill(0);
  const queue: number[] = [];
  for (let k = 0; k < classes; k++) {
    const next = goto[0]![k]!;
    if (next < 0) goto[0]![k] = 0;
    else queue.push(next);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    ends[state]!.push(...ends[fail[state]!]!);
    for (let k = 0; k < classes; k++) {
      const next = goto[state]![k]!;
      if (next < 0) goto[state]![k] = goto[fail[state]!]![k]!;
      else {
        fail[next] = goto[fail[state]!]![k]!;
        queue.push(next);
      }
    }
  }
  // Each entry is the next state's row offset, doubled, plus 1 when a keyword ends there.
  const table = new Int32Array(goto.length * classes);
  goto.forEach((row, state) =>
    row.forEach((next, k) => (table[state * classes + k] = next * classes * 2 + (ends[next]!.length > 0 ? 1 : 0))),
  );
  const longest = Math.max(...words.map((word) => word.length));
  const bytes = Buffer.alloc(CHUNK + 4);
  const found: number[] = [];

  function add(entry: number): void {
    for (const keyword of ends[(entry >> 1) / classes]!) if (!found.includes(keyword)) found.push(keyword);
  }

  /** Each later lane starts `longest - 1` bytes before its quarter, so a keyword across two quarters is found whole. */
  function pass(length: number): void {
    const share = Math.ceil(length / 4);
    const lead = longest - 1;
    if (share <= lead) {
      let entry = 0;
      for (let i = 0; i < length; i++) {
        entry = table[(entry >> 1) + classOf[bytes[i]!]!]!;
        if ((entry & 1) !== 0) add(entry);
      }
      return;
    }
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    let ib = share - lead;
    let ic = 2 * share - lead;
    let id = 3 * share - lead;
    for (let s = 0; s < lead; s++, ib++, ic++, id++) {
      b = table[(b >> 1) + classOf[bytes[ib]!]!]!;
      c = table[(c >> 1) + classOf[bytes[ic]!]!]!;
      d = table[(d >> 1) + classOf[bytes[id]!]!]!;
      if (((b | c | d) & 1) !== 0) for (const entry of [b, c, d]) if ((entry & 1) !== 0) add(entry);
    }
    for (let ia = 0; ia < share; ia++, ib++, ic++, id++) {
      a = table[(a >> 1) + classOf[bytes[ia]!]!]!;
      b = table[(b >> 1) + classOf[bytes[ib]!]!]!;
      c = table[(c >> 1) + classOf[bytes[ic]!]!]!;
      d = table[(d >> 1) + classOf[bytes[id]!]!]!;
      if (((a | b | c | d) & 1) !== 0) for (const entry of [a, b, c, d]) if ((entry & 1) !== 0) add(entry);
    }
  }

  return {
    find(text, from = 0) {
      found.length = 0;
      for (let at = from; at < text.length; at += CHUNK - longest) {
        const part = text.slice(at, at + CHUNK);
        const length = bytes.write(part, 0, 'latin1');
        // Latin-1 keeps a wider unit's low byte, which may read as a keyword's character: such units are set to 0.
        if (WIDE.test(part)) for (let i = 0; i < length; i++) if (part.charCodeAt(i) > 0xff) bytes[i] = 0;
        bytes.fill(0, length, length + 4);
        pass(length);
        if (at + length >= text.length) break;
      }
      return found.slice();
    },
  };
}
