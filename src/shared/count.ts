/** `counted(1, 'line')` is "1 line", `counted(0, 'line')` "0 lines". */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
