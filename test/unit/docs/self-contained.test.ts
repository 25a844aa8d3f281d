import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A reader has this repository and nothing else: a rule is stated where it is
 * used, or a page of docs/ is named for it. A numbered section or an issue
 * number points at a document the reader does not have. RFCs and published
 * specifications are public and stay citable.
 */
const OUTSIDE = /\b(?:[Cc]ontract(?: section)? \d|[Ss]ection \d|[Ii]ssues? \d)|§ ?\d/;
const PUBLIC = /\bRFC \d|jsonrpc\.org/;

/** Every tracked text file, by git: what a clone holds. */
function trackedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return listed.split('\0').filter((f) => /\.(?:ts|mts|js|mjs|md|yml|yaml|sh|lua|html|css)$|^\.ci\//.test(f));
}

describe('the repository is self-contained', () => {
  it('cites no section of an outside document and no issue number, in code, tests, docs or scripts', () => {
    const found: string[] = [];
    for (const file of trackedFiles()) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE.test(line) && !PUBLIC.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
