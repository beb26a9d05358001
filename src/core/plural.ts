// Counts in user-facing text: "1 note", "2 notes", never "1 notes".

/** `n` and the word in the number it takes (`many` when the plural is not the word plus `s`). */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
