// Types of scripts/demoPi.mjs for the tests that import it.
export function writeDemoPi(dir: string): { file?: string; why?: string };
export function demoSettings(dir: string): Record<string, string>;
