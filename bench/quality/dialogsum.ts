/**
 * Reads dialogues in the DialogSum format: JSONL, one object a line with `fname`, `dialogue` (turns
 * written `#Person1#: …`, one a line), `summary` and `topic`.
 *
 * Mapping to a conversation: each turn is one message; `#Person1#` (who opens the dialogue and,
 * like a user, usually asks) is USER, `#Person2#` is ASSISTANT, and the rare `#Person3#`, `#Person4#`
 * are UNKNOWN. The speaker tag is removed from the message text: the role says who spoke. A line
 * without a tag continues the previous turn.
 */
import { readFile } from 'node:fs/promises';
import type { MessageRole } from '../../src/records.js';

export interface Turn {
  readonly role: MessageRole;
  /** The dataset's name for the speaker: `#Person1#`. */
  readonly speaker: string;
  readonly text: string;
}

export interface Dialogue {
  readonly id: string;
  readonly turns: readonly Turn[];
  readonly summary: string;
  readonly topic: string;
}

const TAG = /^\s*#(Person(\d+))#\s*:\s*/;

export function roleOf(person: number): MessageRole {
  return person === 1 ? 'USER' : person === 2 ? 'ASSISTANT' : 'UNKNOWN';
}

/** The turns of one `dialogue` field. */
export function parseTurns(dialogue: string): Turn[] {
  const turns: Turn[] = [];
  for (const line of dialogue.split('\n')) {
    const tag = TAG.exec(line);
    if (tag) {
      turns.push({ role: roleOf(Number(tag[2])), speaker: `#${tag[1]}#`, text: line.slice(tag[0].length).trim() });
    } else if (line.trim() !== '' && turns.length > 0) {
      const last = turns.pop()!;
      turns.push({ ...last, text: `${last.text}\n${line.trim()}` });
    }
  }
  return turns.filter((t) => t.text !== '');
}

/** The dialogues of a DialogSum JSONL file, in file order. */
export async function readDialogues(file: string): Promise<Dialogue[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const row = JSON.parse(line) as {
        fname?: string;
        dialogue: string;
        summary?: string;
        summary1?: string;
        topic?: string;
        topic1?: string;
      };
      // The test split has `summary1..3` and `topic1..3`; the first reference is used.
      return {
        id: row.fname ?? `line-${i + 1}`,
        turns: parseTurns(row.dialogue),
        summary: row.summary ?? row.summary1 ?? '',
        topic: row.topic ?? row.topic1 ?? '',
      };
    });
}

/**
 * LEAD-3: the first three turns as one text, speaker tags left out (the usual baseline, R1 22.8 on
 * the dev split) or, with `named`, kept (`#Person1#: …`), which credits the baseline with the speaker
 * names the references use.
 */
export function lead3(turns: readonly Turn[], named = false): string {
  return turns
    .slice(0, 3)
    .map((t) => (named ? `${t.speaker}: ${t.text}` : t.text))
    .join(' ');
}
