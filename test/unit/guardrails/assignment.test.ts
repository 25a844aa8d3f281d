import { describe, expect, it } from 'vitest';
import { findUrlPasswords } from '../../../src/guardrails/assignment.js';
import type { Hit } from '../../../src/guardrails/rules.js';
import { randomTexts } from '../../helpers/random-texts.js';

/** The rule as one regular expression, as it was written before the search by `://`: what the search must find. */
const REFERENCE = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/([^\s:/@"'<>]{1,128}):([^\s:/@"'<>]{1,256})@/g;

/** The [start, end) of each password REFERENCE finds from `from` on (before the checks on the value, which both share). */
function reference(text: string, from: number): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  REFERENCE.lastIndex = from;
  for (let m = REFERENCE.exec(text); m !== null; m = REFERENCE.exec(text)) {
    const extent = m.index + m[0].length;
    if (m[2] !== m[1] && /\d/.test(m[2]!)) found.push([extent - 1 - m[2]!.length, extent - 1]);
  }
  return found;
}

function found(text: string, from: number): Array<[number, number]> {
  const hits: Hit[] = [];
  findUrlPasswords(text, from, (hit) => hits.push(hit));
  return hits.filter((hit) => /\d/.test(text.slice(hit.start, hit.end))).map((hit) => [hit.start, hit.end]);
}

describe('URL passwords', () => {
  it('finds the password of a URL with credentials, not the default that repeats the user, nor a scheme too long or cut', () => {
    const text = 'db postgres://app:s3cr3t-Pw9@db:5432 and postgres://postgres:postgres@x and x' + 'a'.repeat(21) + '://u:p4ssw0rd9@h';
    expect(found(text, 0)).toEqual([[18, 28]]);
    expect(found('1x://u:p4ssw0rd9@h 9://u:p4ssw0rd9@h', 0)).toEqual([]);
  });

  it('agrees with the regular expression it replaced on 5,000 random texts, from every start', () => {
    const pieces = ['://', 'http', 's', '+', '.', '-', '1', 'u', ':', 'p4ss9', '@', '/', ' ', '"', 'a'.repeat(19), 'é', 'x9'];
    for (const { text, from } of randomTexts(pieces, 5000, 30, 11)) {
      expect(found(text, from), JSON.stringify({ text, from })).toEqual(reference(text, from));
    }
  });
});
