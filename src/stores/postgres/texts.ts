/**
 * Ids and list items as PostgreSQL `text`. A text value cannot hold U+0000, and node-postgres
 * sends strings as UTF-8, which has no form for a lone surrogate (it would become U+FFFD): both
 * are strings the JSON-file store keeps as they are. Such a string is stored as ESCAPE followed
 * by its JSON form (which spells both with `\u` escapes); every other string is stored as itself,
 * so `psql` shows ids as they are. A string that itself starts with ESCAPE is escaped too, which
 * keeps the mapping one-to-one.
 */
const ESCAPE = '\u0001';

/** `value` as it is stored in a text column. */
export function toText(value: string): string {
  return needsEscape(value) ? ESCAPE + JSON.stringify(value) : value;
}

/** The string a text column holds, as it was given to {@link toText}. */
export function fromText(text: string): string {
  return text.charCodeAt(0) === 1 ? (JSON.parse(text.slice(1)) as string) : text;
}

function needsEscape(value: string): boolean {
  return value.charCodeAt(0) === 1 || value.includes('\u0000') || !(value as { isWellFormed(): boolean } & string).isWellFormed();
}
