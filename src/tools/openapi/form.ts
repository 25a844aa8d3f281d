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
