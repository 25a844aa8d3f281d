import { randomUUID } from 'node:crypto';

/**
 * An `application/x-www-form-urlencoded` body from the body's arguments, in the bracket notation Stripe, Rails and PHP read: a value that
 * is neither an object nor an array is `name=value`; an object `name[key]=…`; a list of objects, or a list whose encoding says
 * `style: deepObject`, `name[0]=…`; any other list repeats its name (OpenAPI's default, `form` exploded). Null and absent values are left out.
 */
export function formBody(fields: readonly (readonly [string, unknown])[], deep: ReadonlySet<string>): string {
  const form = new URLSearchParams();
  const add = (name: string, value: unknown, indexed: boolean): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      const nested = indexed || value.some((item) => typeof item === 'object' && item !== null);
      value.forEach((item: unknown, i) => add(nested ? `${name}[${i}]` : name, item, true));
    } else if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) add(`${name}[${key}]`, item, true);
    } else form.append(name, String(value));
  };
  for (const [name, value] of fields) add(name, value, deep.has(name));
  return form.toString();
}

/** A part's name in its Content-Disposition header, quoted as the HTML standard writes it: `"`, CR and LF percent-encoded. */
const partName = (name: string) => name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/**
 * A `multipart/form-data` body (RFC 7578) from the body's arguments, and its content type with the boundary: a value that is neither an
 * object nor an array is a text part; an object a part of `application/json` (OpenAPI's default for an object); a list one part per item,
 * by the same rule. Null and absent values are left out. The boundary is random and occurs in no value.
 */
export function multipartBody(fields: readonly (readonly [string, unknown])[]): { text: string; type: string } {
  const parts: string[] = [];
  const add = (name: string, value: unknown, top: boolean): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value) && top) return value.forEach((item: unknown) => add(name, item, false));
    const json = typeof value === 'object';
    const head = `Content-Disposition: form-data; name="${partName(name)}"${json ? '\r\nContent-Type: application/json' : ''}`;
    parts.push(`${head}\r\n\r\n${json ? JSON.stringify(value) : String(value as string | number | boolean)}`);
  };
  for (const [name, value] of fields) add(name, value, true);
  let boundary = `toolgate-${randomUUID()}`;
  while (parts.some((part) => part.includes(boundary))) boundary = `toolgate-${randomUUID()}`;
  const text = parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('') + `--${boundary}--\r\n`;
  return { text, type: `multipart/form-data; boundary=${boundary}` };
}
