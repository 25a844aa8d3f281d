import { stemmer } from 'stemmer';
import type { RegisteredTool } from './registry.js';

/** Words that say nothing about which tool is meant ("get the weather for a city"): noise in a catalog of near-identical descriptions. */
const STOP_WORDS = new Set(
  'a an and are as at be by can for from in into is it its of on or that the this to was will with you your'.split(' '),
);

/** Short forms API names use (`repos_list`, "Lists repositories"), read as the full word so a query in either form finds both. */
const ABBREVIATIONS = new Map(
  Object.entries({
    repo: 'repository',
    repos: 'repositories',
    org: 'organization',
    orgs: 'organizations',
    dir: 'directory',
    dirs: 'directories',
    config: 'configuration',
    env: 'environment',
    auth: 'authentication',
    db: 'database',
    msg: 'message',
    info: 'information',
    pr: 'pull request',
    prs: 'pull requests',
    id: 'identifier',
    ids: 'identifiers',
    img: 'image',
    doc: 'document',
    docs: 'documents',
  }),
);

/**
 * Words of a name or text as the index keeps them: camelCase, snake_case and kebab-case split (`HTTPServer` → http, server), lowercased,
 * punctuation and stop words dropped, short forms spelled out, each reduced to its Porter stem (`repositories` → `repositori`).
 */
export function tokenize(text: string): string[] {
  const spaced = text.replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  const tokens: string[] = [];
  for (const word of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    const full = ABBREVIATIONS.get(word);
    if (full === undefined) tokens.push(stemmer(word));
    else for (const part of full.split(' ')) tokens.push(stemmer(part));
  }
  return tokens;
}

/** Whether `query` holds a word to look for: one that cannot match any tool is refused, not answered with an empty list. */
export function hasSearchWords(query: string): boolean {
  return tokenize(query).length > 0;
}

/** How much a word counts by where it is: the name most, the description next, the parameters least. */
export const FIELD_WEIGHTS = { name: 3, description: 2, parameters: 1 } as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

/** BM25's usual constants: term-frequency saturation, and length normalization (within each field). */
const K1 = 1.2;
const B = 0.75;

/** Parameter names and descriptions, nested objects and array items included, to this depth. */
const PARAMETER_DEPTH = 4;

/** The parameter text of a JSON Schema: every property's name and description. */
export function parameterText(schema: unknown, depth = 0): string[] {
  if (depth > PARAMETER_DEPTH || typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const out: string[] = [];
  const properties = node.properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, sub] of Object.entries(properties)) {
      out.push(name);
      const description = (sub as Record<string, unknown> | null)?.description;
      if (typeof description === 'string') out.push(description);
      out.push(...parameterText(sub, depth + 1));
    }
  }
  if (node.items !== undefined) out.push(...parameterText(node.items, depth + 1));
  return out;
}

/** What the index needs of a tool. */
export interface SearchDocument {
  name: string;
  description: string;
  parameters: unknown;
}

/** A BM25 index over a fixed list of documents; built once, searched many times. */
export interface SearchIndex<T> {
  /** At most `limit` documents matching a word of `query` for which `include` holds, best first (equal scores by name). */
  search(query: string, limit: number, include?: (doc: T) => boolean): T[];
  /** Each matching document with its score. */
  scores(query: string): Array<{ doc: T; score: number }>;
}

/** Word → the documents holding it, and what it adds to each one's score (fixed once the index is built). */
interface Posting {
  docs: Int32Array;
  contributions: Float64Array;
}

/**
 * A BM25F index over `docs`: each field's term frequency is normalized by its length (so a short name that says exactly what was asked
 * outranks a long one that mentions both words), fields are weighted and summed, and the sum saturates as in BM25. Each word's
 * contribution to each document is worked out at build time; a search only adds them up.
 */
export function buildIndex<T extends SearchDocument>(docs: readonly T[]): SearchIndex<T> {
  const n = docs.length;
  const raw = new Map<string, Array<{ doc: number; tf: Record<Field, number> }>>();
  const lengths = FIELDS.map(() => new Float64Array(n));
  docs.forEach((doc, i) => {
    const texts: Record<Field, string[]> = { name: [doc.name], description: [doc.description], parameters: parameterText(doc.parameters) };
    const tf = new Map<string, Record<Field, number>>();
    FIELDS.forEach((field, f) => {
      for (const text of texts[field]) {
        for (const token of tokenize(text)) {
          let counts = tf.get(token);
          if (!counts) tf.set(token, (counts = { name: 0, description: 0, parameters: 0 }));
          counts[field] += 1;
          lengths[f]![i]! += 1;
        }
      }
    });
    for (const [token, counts] of tf) {
      let list = raw.get(token);
      if (!list) raw.set(token, (list = []));
      list.push({ doc: i, tf: counts });
    }
  });
  const averages = lengths.map((l) => (n === 0 ? 0 : l.reduce((a, b) => a + b, 0) / n));
  const postings = new Map<string, Posting>();
  for (const [token, list] of raw) {
    // Lucene's IDF: never negative, so a word in most tools still adds a little.
    const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
    const posting: Posting = { docs: new Int32Array(list.length), contributions: new Float64Array(list.length) };
    list.forEach(({ doc, tf }, j) => {
      let weighted = 0;
      FIELDS.forEach((field, f) => {
        if (tf[field] > 0) weighted += (FIELD_WEIGHTS[field] * tf[field]) / (1 - B + (B * lengths[f]![doc]!) / averages[f]!);
      });
      posting.docs[j] = doc;
      posting.contributions[j] = (idf * weighted * (K1 + 1)) / (weighted + K1);
    });
    postings.set(token, posting);
  }
  // Equal scores come in name order.
  const byName = docs.map((_, i) => i).sort((a, b) => (docs[a]!.name < docs[b]!.name ? -1 : docs[a]!.name > docs[b]!.name ? 1 : 0));
  const nameRank = new Int32Array(n);
  byName.forEach((doc, rank) => (nameRank[doc] = rank));
  // Reused by every search: a search runs to its end without yielding, so no two share it.
  const acc = new Float64Array(n);

  /** The matching documents, unordered; their scores are in `acc` until {@link clear}. */
  function matches(query: string): number[] {
    const found: number[] = [];
    for (const token of new Set(tokenize(query))) {
      const posting = postings.get(token);
      if (!posting) continue;
      for (let j = 0; j < posting.docs.length; j++) {
        const doc = posting.docs[j]!;
        if (acc[doc] === 0) found.push(doc);
        acc[doc]! += posting.contributions[j]!;
      }
    }
    return found;
  }
  const clear = (found: readonly number[]) => {
    for (const doc of found) acc[doc] = 0;
  };
  const better = (a: number, b: number) => acc[a]! > acc[b]! || (acc[a] === acc[b] && nameRank[a]! < nameRank[b]!);

  return {
    search(query, limit, include = () => true) {
      const found = matches(query);
      // The best `limit` in a sorted array: each match either falls off its end or is put in place.
      const top: number[] = [];
      for (const doc of found) {
        if (top.length >= limit && !better(doc, top[top.length - 1]!)) continue;
        if (!include(docs[doc]!)) continue;
        let at = top.length;
        while (at > 0 && better(doc, top[at - 1]!)) at--;
        top.splice(at, 0, doc);
        if (top.length > limit) top.pop();
      }
      clear(found);
      return top.map((doc) => docs[doc]!);
    },
    scores(query) {
      const found = matches(query).sort((a, b) => acc[b]! - acc[a]! || nameRank[a]! - nameRank[b]!);
      const ranked = found.map((doc) => ({ doc: docs[doc]!, score: acc[doc]! }));
      clear(found);
      return ranked;
    },
  };
}

interface ToolDocument extends SearchDocument {
  entry: RegisteredTool;
}

const indexes = new WeakMap<readonly RegisteredTool[], SearchIndex<ToolDocument>>();

/** The index of one registry version (the array `ToolRegistry.list()` returns): built on its first search, dropped with it. */
export function searchTools(
  registry: readonly RegisteredTool[],
  query: string,
  limit: number,
  include?: (entry: RegisteredTool) => boolean,
): RegisteredTool[] {
  let index = indexes.get(registry);
  if (!index) {
    index = buildIndex(
      registry.map((entry) => ({ name: entry.name, description: entry.tool.description, parameters: entry.tool.parameters, entry })),
    );
    indexes.set(registry, index);
  }
  return index.search(query, limit, include && ((doc) => include(doc.entry))).map((doc) => doc.entry);
}
