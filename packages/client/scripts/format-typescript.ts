import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const biome = fileURLToPath(new URL('../../../node_modules/.bin/biome', import.meta.url));
const SEPARATOR = '// ----- generated chunk -----';

/** Formats pieces of TypeScript as biome formats every other file, in one biome run, and returns them in order. */
export function formatTypeScript(pieces: readonly string[], file: string): string[] {
  const formatted = execFileSync(biome, ['format', `--stdin-file-path=${file}`], {
    input: pieces.join(`\n${SEPARATOR}\n`),
    encoding: 'utf8',
  });
  return formatted.split(`${SEPARATOR}\n`).map((piece) => piece.trimEnd());
}
