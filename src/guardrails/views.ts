/**
 * The encodings a credential hides in, decoded so the rules read plain text: JSON/C escapes, percent-encoding, UTF-16
 * read as bytes, ANSI colour codes and HTML character references. `map` sends each view character back to where it
 * starts, so a find is replaced there, escapes and all. Views nest, at most MAX_DEPTH deep.
 */
export interface View {
  text: string;
  map: Int32Array;
  utf16: boolean;
}

const MAX_DEPTH = 3;
const ESCAPED =
  // eslint-disable-next-line no-control-regex
  /\\(?:[nrtbfv"'\\/]|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2})|%[0-9A-Fa-f]{2}|\x1b\[[0-?]*[ -/]*[@-~]|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|quot|amp|apos|lt|gt);/;

/** Native searches: `&` alone is common in code (`&&`). */
function hasEntities(text: string): boolean {
  return (
    text.includes('&') &&
    (text.includes('&#') ||
      text.includes('&quot;') ||
      text.includes('&amp;') ||
      text.includes('&apos;') ||
      text.includes('&lt;') ||
      text.includes('&gt;'))
  );
}

function hasEscapes(text: string): boolean {
  return (text.includes('\\') || text.includes('%') || text.includes('\x1b') || hasEntities(text)) && ESCAPED.test(text);
}

const SIMPLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '"': '"', "'": "'", '\\': '\\', '/': '/' };

const ESCAPES = new RegExp(ESCAPED.source, 'g');

const ENTITIES: Record<string, string> = { quot: '"', amp: '&', apos: "'", lt: '<', gt: '>' };

function decodeEscape(escape: string): string {
  const c = escape[1]!;
  if (escape[0] === '%') return String.fromCharCode(parseInt(escape.slice(1), 16));
  if (escape[0] === '\x1b') return '';
  if (escape[0] === '&') {
    if (c !== '#') return ENTITIES[escape.slice(1, -1)]!;
    const code = escape[2] === 'x' || escape[2] === 'X' ? parseInt(escape.slice(3, -1), 16) : parseInt(escape.slice(2, -1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  }
  return c === 'x' || c === 'u' ? String.fromCharCode(parseInt(escape.slice(2), 16)) : SIMPLE[c]!;
}

function unescape(text: string): { text: string; map: Int32Array } {
  const parts: string[] = [];
  const map = new Int32Array(text.length + 1);
  let length = 0;
  let at = 0;
  ESCAPES.lastIndex = 0;
  for (let m = ESCAPES.exec(text); m !== null; m = ESCAPES.exec(text)) {
    parts.push(text.slice(at, m.index));
    for (let i = at; i < m.index; i++) map[length++] = i;
    const decoded = decodeEscape(m[0]);
    parts.push(decoded);
    // Every character decoded maps to where its escape starts; a colour code decodes to none.
    for (let i = 0; i < decoded.length; i++) map[length++] = m.index;
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  for (let i = at; i <= text.length; i++) map[length++] = i;
  return { text: parts.join(''), map: map.subarray(0, length) };
}

function dropNuls(text: string): { text: string; map: number[] } {
  let out = '';
  const map: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A byte-order mark read as bytes (FF FE, FE FF) says nothing to the rules.
    if (code === 0 || code === 0xfe || code === 0xff) continue;
    out += text[i];
    map.push(i);
  }
  map.push(text.length);
  return { text: out, map };
}

function looksUtf16(text: string): boolean {
  let nuls = 0;
  for (let i = text.indexOf('\0'); i >= 0; i = text.indexOf('\0', i + 1)) nuls++;
  return nuls * 5 >= text.length;
}

/** None for plain text, the common case. */
export function viewsOf(text: string): View[] {
  const views: View[] = [];
  let base: { text: string; map?: Int32Array; utf16: boolean } = { text, utf16: false };
  if (text.includes('\0') && looksUtf16(text)) {
    const dropped = dropNuls(text);
    base = { text: dropped.text, map: Int32Array.from(dropped.map), utf16: true };
    views.push(base as View);
  }
  for (let depth = 0; depth < MAX_DEPTH && hasEscapes(base.text); depth++) {
    const decoded = unescape(base.text);
    const outer = base.map;
    const map = decoded.map;
    if (outer !== undefined) for (let i = 0; i < map.length; i++) map[i] = outer[map[i]!]!;
    base = { text: decoded.text, map, utf16: base.utf16 };
    views.push(base as View);
  }
  return views;
}

export function viewIndex(view: View, at: number): number {
  let lo = 0;
  let hi = view.text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (view.map[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function utf16Marker(original: string, marker: string): string {
  let nuls = 0;
  for (const c of original) if (c === '\0') nuls++;
  // Only a span that really is UTF-16 takes the marker in UTF-16.
  if (nuls === 0 || nuls < original.length - nuls - 1) return marker;
  return `${marker.split('').join('\0')}${original.endsWith('\0') ? '\0' : ''}`;
}
