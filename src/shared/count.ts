/**
 * A number with its noun, singular for exactly one: `counted(1, 'line')` is
 * "1 line", `counted(0, 'line')` "0 lines". Texts a model or a person reads
 * say their counts this way.
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
