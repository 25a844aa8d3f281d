/**
 * `count` texts of up to `maxPieces` of `pieces` each, in a seeded order so a failure shows the same text on every run, each with a
 * start position from 0 to 1 past its end: what a differential test feeds a search and its reference.
 */
export function* randomTexts(
  pieces: readonly string[],
  count: number,
  maxPieces: number,
  seed: number,
): Generator<{ text: string; from: number }> {
  let state = seed;
  const random = (n: number) => ((state = (state * 1103515245 + 12345) % 2 ** 31), state % n);
  for (let n = 0; n < count; n++) {
    let text = '';
    const length = random(maxPieces);
    for (let i = 0; i < length; i++) text += pieces[random(pieces.length)];
    yield { text, from: random(text.length + 2) };
  }
}
