/**
 * Stage-level tests of the coding-assistant chat rules: titles from the assistant's announced task
 * or an imperative request (src/summarizers/echo.ts) and the request/outcome/open note
 * (src/summarizers/chat-note.ts).
 */
import { describe, expect, it } from 'vitest';
import type { SummarizerMessage } from '../../src/ports.js';
import { compact, fileSubject } from '../../src/summarizers/echo.js';
import { createExtractiveSummarizer } from '../../src/summarizers/index.js';

const long = (lead: string, rest: string): string => `${lead}\n\n${Array.from({ length: 12 }, () => rest).join(' ')}`;
const chat = (...turns: [SummarizerMessage['role'], string][]): SummarizerMessage[] =>
  turns.map(([role, text], i) => ({ id: `m${i + 1}`, role, text }));
const summarizer = createExtractiveSummarizer();

describe('compact and fileSubject', () => {
  it('names files by their subject and keeps only the head of a clause', () => {
    expect(fileSubject('@docs/api-spec.md')).toBe('api spec');
    expect(fileSubject('README.md')).toBe('README');
    expect(compact('update the @testsprite-mcp-test-report.md file, which is stale', 7)).toBe('update testsprite mcp test report file');
    expect(compact('implement Task 1.2: Core Project Management Commands', 7)).toBe('implement Core Project Management Commands');
    expect(compact('deploy the app for the DocGen CLI project', 7)).toBe('deploy app');
  });

  it('ends the head at a relative clause or a run-on imperative, and only there', () => {
    expect(compact('write a rule that prevents the agent from running two commands', 7)).toBe('write rule');
    expect(compact('fix that bug in the parser', 7)).toBe('fix bug in parser');
    expect(compact('delete unwanted scripts Keep only the important ones', 6)).toBe('delete unwanted scripts');
    expect(compact('make the parser keep the whitespace', 7)).toBe('make parser keep whitespace');
    expect(compact('update the docs and changelog files for the release', 4)).toBe('update docs and changelog');
  });
});

describe('titles of coding-assistant chats', () => {
  it("names the user's task when the assistant only announces looking first, and ends a run-on request", async () => {
    const messages = chat(
      ['USER', '@scripts/ delete unwanted scripts keep only the important ones'],
      [
        'ASSISTANT',
        long(
          "I'll analyze the scripts directory and identify which scripts are unused.",
          'The folder holds build, release and test helpers.',
        ),
      ],
    );
    expect(await summarizer.title(messages)).toBe('Deleting unwanted scripts');
  });

  it('keeps a version number inside its sentence', async () => {
    const messages = chat(
      ['USER', 'Tags: Need to push the v1.0.0 tag to GitHub.'],
      ['ASSISTANT', long('The tag push failed with a 403.', 'The token lacks the scope that pushing tags needs, so the push was refused.')],
    );
    expect(await summarizer.summarize(messages)).toContain('v1.0.0 tag to GitHub');
  });

  it('reads both verbs of an either-or request as activities, and a dotfile mention as part of its sentence', async () => {
    const either = chat(
      ['USER', '@specs/ update or add any file here if it will help the workflow'],
      ['ASSISTANT', long("I'll look at the specs folder first.", 'The folder holds the requirements and the design notes.')],
    );
    expect(await summarizer.title(either)).toBe('Updating or adding file');
    const dotfile = chat(
      ['USER', 'what is `MONGO_PREFIX` for in @.env.example ?'],
      ['ASSISTANT', 'It sets the prefix of every collection name, so that two apps can share one database.'],
    );
    // One sentence about the file, not one cut at `@.` and a stray `env.example ?`.
    const summary = await summarizer.summarize(dotfile);
    expect(summary).toContain('@.env.example.');
    expect(summary.split('. The assistant')).toHaveLength(2);
  });

  it('keeps both halves of a two-part task, and does not take a noun for a second task', async () => {
    const answered = (announcement: string) =>
      summarizer.title(
        chat(['USER', 'go ahead'], ['ASSISTANT', long(announcement, 'The files were read and the changes were made one by one.')]),
      );
    expect(await answered("I'll install Playwright for browser automation and re-run the complete integration workflow.")).toBe(
      'Installing Playwright and re-running complete integration workflow',
    );
    expect(await answered("I'll update the docs and release notes.")).toBe('Updating docs and release notes');
    expect(await answered("I'll update the docs and release the notes.")).toBe('Updating docs and releasing notes');
    expect(await answered("I'll review the workflow and update/add files.")).toBe('Reviewing workflow and updating/adding files');
  });

  it('takes the topic from the answer when the request is vague', async () => {
    const messages = chat(
      ['USER', '#selection fix this'],
      [
        'ASSISTANT',
        long(
          "I'll fix the JSON parse error in the env loader.",
          'The loader reads the file and parses each line as JSON before the values are trimmed.',
        ),
      ],
    );
    expect(await summarizer.title(messages)).toBe('Fixing JSON parse error in env loader');
  });

  it('never copies file paths or adds a language the user did not use', async () => {
    const messages = chat(
      ['USER', '@api-spec.md @ADR-002.md please push this to the remote'],
      [
        'ASSISTANT',
        long('Pushed.', 'The branch was pushed to origin and the upstream is now set for later pushes.') + '\n\n```python\nprint(1)\n```',
      ],
    );
    const title = await summarizer.title(messages);
    expect(title).not.toMatch(/\u2024|\.md|Python/);
    expect(title).toMatch(/^Pushing/);
  });
});

describe('summaries of coding-assistant chats', () => {
  it('says what was asked and what was done, without narration, checklists, emoji or tool prompts', async () => {
    const messages = chat(
      ['USER', 'kill what is on port 8080'],
      [
        'ASSISTANT',
        long("I'll free port 8080 on Windows.", 'Let me check which process holds the port before stopping it.') +
          '\n\n- ✅ Updated PLAN.md\n\nThe process on port 8080 has been stopped and the port is free now.\n\nContinue to iterate?',
      ],
    );
    const summary = await summarizer.summarize(messages);
    expect(summary).toMatch(/^The user asked for help with freeing port 8080 on Windows \(“kill what is on port 8080”\)\./);
    expect(summary).toContain('has been stopped');
    expect(summary).not.toMatch(/✅|Let me|Continue to iterate|code example/);
  });
});
