// A count with its noun, the noun singular for one ("1 file", "3 files"): the variants view, the
// editor's notifications and the CLI word their counts alike.
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;
