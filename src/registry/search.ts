import { stemmer } from 'stemmer';
import type { RegisteredTool } from './registry.js';

/**
 * Words that say nothing about which tool is meant ("get the weather for a
 * city"). BM25 would weigh them low anyway, but in a catalog of
 * near-identical descriptions they still add noise to the ranking.
 */
const STOP_WORDS = new Set(
  'a an and are as at be by can for from in into is it its of on or that the this to was will with you your'.split(' '),
);

/**
 * Words of a name or text, as the index keeps them: camelCase, snake_case and
 * kebab-case split (`getWeather` → get, weather; `HTTPServer` → http, server),
 * lowercased, punctuation dropped, stop words left out, each word reduced to
 * its Porter stem (`repositories` and `repository` → `repositori`).
 */
export function tokenize(text: string): string[] {
  const spaced = text.replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  const tokens: string[] = [];
  for (const word of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    tokens.push(stemmer(word));
  }
  return tokens;
}

/**
 * How much one occurrence counts, by where it is: a word of the name says
 * most about a tool, its description next, its parameters least (BM25F with
 * the fields' frequencies weighted into one bag of words).
 */
export const FIELD_WEIGHTS = { name: 3, description: 2, parameters: 1 } as const;

/** BM25's usual constants: term-frequency saturation and length normalization. */
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
  /**
   * The documents matching at least one word of `query` for which `include`
   * holds, best first (equal scores by name), at most `limit` of them.
   */
  search(query: string, limit: number, include?: (doc: T) => boolean): T[];
  /** Each matching document with its score, for tests and the bench. */
  scores(query: string): Array<{ doc: T; score: number }>;
}

/** Build a BM25 index over `docs` (see {@link tokenize} and {@link FIELD_WEIGHTS}). */
export function buildIndex<T extends SearchDocument>(docs: readonly T[]): SearchIndex<T> {
  const postings = new Map<string, Array<{ doc: number; tf: number }>>();
  const lengths = new Float64Array(docs.length);
  docs.forEach((doc, i) => {
    const tf = new Map<string, number>();
    const add = (text: string, weight: number) => {
      for (const token of tokenize(text)) {
        tf.set(token, (tf.get(token) ?? 0) + weight);
        lengths[i]! += weight;
      }
    };
    add(doc.name, FIELD_WEIGHTS.name);
    add(doc.description, FIELD_WEIGHTS.description);
    for (const text of parameterText(doc.parameters)) add(text, FIELD_WEIGHTS.parameters);
    for (const [token, count] of tf) {
      let list = postings.get(token);
      if (!list) postings.set(token, (list = []));
      list.push({ doc: i, tf: count });
    }
  });
  const n = docs.length;
  const avgLength = n === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / n;

  function scored(query: string): Map<number, number> {
    const scores = new Map<number, number>();
    for (const token of new Set(tokenize(query))) {
      const list = postings.get(token);
      if (!list) continue;
      // Lucene's IDF: never negative, so a word in most tools still adds a little.
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = K1 * (1 - B + (B * lengths[doc]!) / avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    return scores;
  }

  function ranked(query: string): Array<{ doc: T; score: number }> {
    return [...scored(query)]
      .map(([i, score]) => ({ doc: docs[i]!, score }))
      .sort((a, b) => b.score - a.score || (a.doc.name < b.doc.name ? -1 : a.doc.name > b.doc.name ? 1 : 0));
  }

  return {
    search(query, limit, include = () => true) {
      const out: T[] = [];
      for (const { doc } of ranked(query)) {
        if (out.length >= limit) break;
        if (include(doc)) out.push(doc);
      }
      return out;
    },
    scores: ranked,
  };
}

interface ToolDocument extends SearchDocument {
  entry: RegisteredTool;
}

const indexes = new WeakMap<readonly RegisteredTool[], SearchIndex<ToolDocument>>();

/**
 * The index of one registry version (the array `ToolRegistry.list()`
 * returns, replaced whole when a source changes): built on its first search
 * and dropped with it, never per request.
 */
export function searchTools(
  registry: readonly RegisteredTool[],
  query: string,
  limit: number,
  include?: (entry: RegisteredTool) => boolean,
): RegisteredTool[] {
  let index = indexes.get(registry);
  if (!index) {
    index = buildIndex(registry.map((entry) => ({ name: entry.name, description: entry.tool.description, parameters: entry.tool.parameters, entry })));
    indexes.set(registry, index);
  }
  return index.search(query, limit, include && ((doc) => include(doc.entry))).map((doc) => doc.entry);
}
