/** The characters an approver could not see or that change how the text after them reads (docs/approvals.md, "The preview"), and a `<` that starts `U+`. */
const HIDDEN = /<(?=U\+)|[^\P{Cc}\n\t]|[^\P{Zs} ]|[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u2028\u2029\u2800]/gu;

const codePoint = (char: string) => `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;

/** What the approver reads is what runs, spelled out. */
export const visibleText = (text: string): string => text.replace(HIDDEN, codePoint);

export function visibleValue(value: unknown): unknown {
  if (typeof value === 'string') return visibleText(value);
  if (Array.isArray(value)) return value.map(visibleValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [visibleText(key), visibleValue(inner)]));
  }
  return value;
}
