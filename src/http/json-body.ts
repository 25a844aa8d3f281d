import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../protocol/errors.js';

/**
 * The JSON body parser, in place of fastify's (whose every failure is "not valid JSON"): the same rules (a `__proto__` key, or a
 * `constructor` holding `prototype`, is refused at any depth), with messages that say which rule and where the text went wrong.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/** Parse a request body; throws BAD_REQUEST saying where the JSON breaks or which key is forbidden. */
function parseJsonBody(text: string): unknown {
  // JSON has no byte order mark, but editors and some clients write one.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (json.trim() === '') throw new GatewayError('BAD_REQUEST', { message: 'The request body is empty; send a JSON document.' });
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    const at = syntaxErrorOffset(json);
    const { line, column } = lineAndColumn(json, at);
    const reason = at >= json.length ? 'it ends early' : `unexpected ${JSON.stringify(json[at])}`;
    throw new GatewayError('BAD_REQUEST', {
      message: `The request body is not valid JSON: ${reason} at line ${line}, column ${column} (character ${at}).`,
      details: { line, column, offset: at, parser: (err as Error).message.slice(0, 200) },
    });
  }
  // A forbidden key must be spelled in the text, possibly with \u escapes; most bodies hold neither.
  if (/__proto__|constructor|\\u/.test(json)) {
    const found = forbiddenKey(value);
    if (found) {
      throw new GatewayError('BAD_REQUEST', {
        message: `The body has a forbidden ${JSON.stringify(found.key)} key at ${found.path}: such keys are refused, as they could change object prototypes.`,
        details: { path: found.path, key: found.key },
      });
    }
  }
  return value;
}

/** The first `__proto__` key, or `constructor` key holding `prototype`, as the JSON pointer of the object that has it. */
function forbiddenKey(root: unknown): { key: string; path: string } | undefined {
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Object.hasOwn(value, '__proto__')) return { key: '__proto__', path: path || '/' };
    const ctor = (value as Record<string, unknown>).constructor;
    if (Object.hasOwn(value, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) {
      return { key: 'constructor', path: path || '/' };
    }
    for (const [key, child] of Object.entries(value)) stack.push([child, `${path}/${key}`.slice(0, 200)]);
  }
  return undefined;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Where JSON.parse gave up, as a character offset (the text's length when it ends early). Node 20's messages carry it for some errors only,
 * so the text is scanned again, without building values and without recursion; run only on bodies that failed to parse.
 */
function syntaxErrorOffset(text: string): number {
  let i = 0;
  // What encloses the current position: '[' or '{'.
  const open: string[] = [];
  const skip = () => {
    while (i < text.length && WS.has(text[i]!)) i += 1;
  };
  // Past a string starting at i; false at the offending character.
  const string = (): boolean => {
    i += 1;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i += 1;
        return true;
      }
      if (c < ' ') return false;
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!HEX4.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) {
          i += 2;
        } else {
          return false;
        }
        continue;
      }
      i += 1;
    }
    return false;
  };
  const scalar = (): boolean => {
    if (text[i] === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return true;
      }
    }
    NUMBER.lastIndex = i;
    if (!NUMBER.exec(text) || NUMBER.lastIndex === i) return false;
    i = NUMBER.lastIndex;
    return true;
  };
  let expectMember = false;
  for (;;) {
    skip();
    if (expectMember) {
      if (text[i] !== '"' || !string()) return i;
      skip();
      if (text[i] !== ':') return i;
      i += 1;
      skip();
    }
    const c = text[i];
    if (c === '{' || c === '[') {
      open.push(c);
      i += 1;
      skip();
      expectMember = c === '{';
      if (text[i] !== (c === '{' ? '}' : ']')) continue;
      open.pop();
      i += 1;
    } else if (!scalar()) {
      return i;
    }
    // After a value: a comma for the next one, or the end of containers.
    for (;;) {
      skip();
      const top = open.at(-1);
      if (top === undefined) return i;
      if (text[i] === ',') {
        i += 1;
        expectMember = top === '{';
        break;
      }
      if (text[i] !== (top === '{' ? '}' : ']')) return i;
      open.pop();
      i += 1;
    }
  }
}
