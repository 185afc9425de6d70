/** The most characters of a title a file name keeps (before its suffix and `.md`). */
const MAX_NAME_CHARS = 80;

/**
 * A file name for a conversation's Markdown, from its title: characters that are not safe in a
 * file name on any system (path separators, control characters, `<>:"|?*`) become `-`, leading
 * dots and spaces go (no `..`, no hidden file), names Windows reserves get a `_`, and the length is
 * bounded. `taken` holds the names given so far (lower-cased): a name given already gets the
 * conversation id's start, then a number.
 */
export function markdownFileName(title: string | undefined, id: string, taken: Set<string>): string {
  let base = (title ?? '')
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, '-')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.-]+|[\s.-]+$/g, '');
  base = [...base].slice(0, MAX_NAME_CHARS).join('').trim() || 'conversation';
  if (/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(base)) base = `${base}_`;
  const safeId = id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) || 'x';
  for (let n = 0; ; n++) {
    const name = `${base}${n === 0 ? '' : n === 1 ? ` (${safeId})` : ` (${safeId}-${n})`}.md`;
    if (!taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      return name;
    }
  }
}
