/**
 * The links between the README, the pages under docs/ and the repository's files lead somewhere: a
 * relative link names a file that exists, and a `#fragment` into a page names one of its headings
 * (as GitHub makes their anchors). Pages move and headings change; a reader following a dead link
 * from the README is the first hour lost again.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a page's headings (outside code blocks), a repeated one numbered as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1]!);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The relative links of a page (outside code blocks and inline code): `[text](target)`. */
function linksOf(markdown: string): string[] {
  const links: string[] = [];
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    if (inCode) continue;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(match[1]!)) links.push(match[1]!);
    }
  }
  return links;
}

describe('the links of the README and the docs', () => {
  it('lead to files that exist, and to headings their pages have', () => {
    const dead: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      const markdown = readFileSync(path.join(ROOT, page), 'utf8');
      for (const link of linksOf(markdown)) {
        checked++;
        const [target, fragment] = link.split('#') as [string, string | undefined];
        const file = target === '' ? path.join(ROOT, page) : path.resolve(ROOT, path.dirname(page), target);
        if (!existsSync(file)) {
          dead.push(`${page}: ${link} (no such file)`);
          continue;
        }
        if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(fragment)) {
          dead.push(`${page}: ${link} (no such heading)`);
        }
      }
    }
    expect(dead).toEqual([]);
    // The pages do link to each other: the check read them.
    expect(checked).toBeGreaterThan(40);
  });
});
