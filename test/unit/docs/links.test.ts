import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines of a Markdown file outside fenced code blocks. */
function prose(text: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces made hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    for (const html of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(html[1]!);
    if (heading === undefined) continue;
    const plain = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every link target of a Markdown file: inline links and reference definitions, outside code. */
function links(text: string): string[] {
  const targets: string[] = [];
  for (const line of prose(text)) {
    const bare = line.replace(/`+[^`]*`+/g, '');
    for (const match of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
    const definition = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(bare);
    if (definition) targets.push(definition[1]!);
  }
  return targets;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** Where each relative link of a page leads, and why it does not resolve (none when it does). */
function brokenLinks(page: string): string[] {
  const file = join(ROOT, page);
  const problems: string[] = [];
  for (const target of links(readFileSync(file, 'utf8')).filter((t) => !isExternal(t))) {
    const [path = '', anchor] = target.split('#', 2);
    const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const inRepo = relative(ROOT, destination);
    if (!existsSync(destination)) {
      problems.push(`${page}: ${target} → no such file`);
      continue;
    }
    // The npm package ships README.md and docs/ only: a link elsewhere would be dead in it.
    if (inRepo !== 'README.md' && !inRepo.startsWith('docs/')) problems.push(`${page}: ${target} → outside README.md and docs/`);
    if (anchor === undefined) continue;
    if (statSync(destination).isDirectory() || !destination.endsWith('.md')) {
      problems.push(`${page}: ${target} → an anchor into a file that is not Markdown`);
    } else if (!anchors(readFileSync(destination, 'utf8')).has(decodeURIComponent(anchor))) {
      problems.push(`${page}: ${target} → no heading with that anchor in ${inRepo}`);
    }
  }
  return problems;
}

/** The reference moved out of the README into docs/; a later move must not leave a link behind. */
describe('documentation links', () => {
  it('the slug rule gives the anchors GitHub gives', () => {
    expect([
      ...anchors(
        '# Settings (`http:`)\n## Mixed batch: 3 Read, 1 Edit, 2 Grep\n```\n# not a heading\n```\n## A b\n## A b\n### max_arg_chars',
      ),
    ]).toEqual(['settings-http', 'mixed-batch-3-read-1-edit-2-grep', 'a-b', 'a-b-1', 'max_arg_chars']);
  });

  it.each(PAGES)('every relative link and anchor in %s resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('every docs/ page links back to the README, and the README links to every docs/ page', () => {
    const readme = links(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((t) => t.split('#')[0]);
    for (const page of PAGES.filter((p) => p.startsWith('docs/'))) {
      expect(links(readFileSync(join(ROOT, page), 'utf8')), page).toContain('../README.md');
      expect(readme, `README.md links to ${page}`).toContain(page);
    }
  });
});
