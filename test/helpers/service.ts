import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import {
  createJsonFileRepository,
  createService,
  type SeededAnchorInput,
  type SeededAnnotationInput,
  type SeededAssetInput,
  type SeededModelInput,
  type SeededPersonInput,
  type SeededRangeInput,
  type SeededTagInput,
  type SeededWebsiteInput,
  type SeededWorkstreamEventInput,
  type SeededWorkstreamPatternEngineSourceInput,
  type SeededWorkstreamSummaryInput,
  type Service,
  type ServiceOptions,
} from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';

/** A clock that moves one second forward on every reading, so `updated` changes are visible. */
export function steppingClock(start = Date.parse('2026-01-01T00:00:00.000Z')) {
  let now = start;
  return () => new Date((now += 1000));
}

/**
 * A service with a recording fake summarizer and a stepping clock, over a memory repository; or,
 * when `TEST_STORE=json-file` (the second run of the operation tests, see vitest.config.ts), over a
 * JSON-file repository in a temporary folder, closed and removed after the test.
 */
export async function serviceForTest(options: ServiceOptions = {}) {
  const summarizer = createFakeSummarizer();
  let repository = options.repository;
  if (!repository && process.env.TEST_STORE === 'json-file') {
    const folder = await mkdtemp(path.join(tmpdir(), 'cms-operations-'));
    const onDisk = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
    onTestFinished(async () => {
      await onDisk.close();
      await rm(folder, { recursive: true, force: true });
    });
    repository = onDisk;
  }
  const service = await createService({ summarizer, clock: steppingClock(), ...options, ...(repository ? { repository } : {}) });
  return { service, summarizer };
}

/** The body of a seeded message. */
export const said = (role: 'USER' | 'ASSISTANT' | 'SYSTEM', raw: string) => ({ role, fragment: { string: { raw } } });

/** Creates a conversation seeded with messages; answers it. */
export function conversationWith(service: Service, ...messages: ReturnType<typeof said>[]) {
  return service.createConversation({ type: 'COPILOT', messages });
}

/** A valid SeededModel; `overrides` changes fields. */
/** The text of a serialized answer (`getConversationJsonPieces`, `JsonPage.text`): a string, its UTF-8 bytes, or pieces to join. */
export const jsonTextOf = (answer: string | Uint8Array | Iterable<string>): string =>
  typeof answer === 'string' ? answer : answer instanceof Uint8Array ? Buffer.from(answer).toString() : [...answer].join('');

export const seededModel = (overrides: Partial<SeededModelInput> = {}): SeededModelInput => ({
  version: '1.0',
  created: { value: '2026-01-01T00:00:00.000Z' },
  name: 'My Llama',
  cloud: false,
  type: 'BALANCED',
  usage: 'CODE_CONVERSATION',
  foundation: 'LLAMA_3_8B',
  unique: 'llama-3-8b-custom',
  ...overrides,
});

/** One valid seed for each record kind conversations link to. */
export const seeds = {
  anchor: { type: 'FILE', fullpath: '/home/me/project/src/index.ts' },
  asset: { application: { id: 'app', name: 'VS_CODE' }, format: { fragment: { string: { raw: 'const x = 1;' } } } },
  website: { url: 'https://example.com/docs', name: 'Docs' },
  range: { from: { value: '2026-01-01T00:00:00.000Z' }, to: { value: '2026-01-02T00:00:00.000Z' }, between: true },
  workstreamSummary: { name: 'Morning work', model: { id: 'some-model' } },
  annotation: { type: 'COMMENT', text: 'Worth a look.' },
  tag: { text: 'performance', category: 'UNKNOWN' },
  person: { type: { basic: { name: 'Ada Lovelace', email: 'ada@example.com' } } },
  workstreamEvent: { application: { id: 'vscode', name: 'VS_CODE' }, trigger: { copy: {} }, readable: 'Copied a snippet' },
  workstreamPatternEngineSource: { raw: { name: 'VS Code', application: 'VS_CODE' }, readable: 'VS Code' },
} satisfies {
  anchor: SeededAnchorInput;
  asset: SeededAssetInput;
  website: SeededWebsiteInput;
  range: SeededRangeInput;
  workstreamSummary: SeededWorkstreamSummaryInput;
  annotation: SeededAnnotationInput;
  tag: SeededTagInput;
  person: SeededPersonInput;
  workstreamEvent: SeededWorkstreamEventInput;
  workstreamPatternEngineSource: SeededWorkstreamPatternEngineSourceInput;
};
