/**
 * Conformance: the official client, `@pieces.app/pieces-os-client` 4.1.0, unmodified, against the
 * example server (`examples/server.ts`) run as a child process on a fresh data folder. Every
 * operation of the spec is driven through the client, and the answers' content is checked, not
 * only that they parsed. The last test restarts the server on the same folder and checks the data
 * survived.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AnchorsApi,
  AnnotationsApi,
  AssetsApi,
  Configuration,
  type Conversation,
  ConversationApi,
  ConversationMessagesApi,
  ConversationsApi,
  FilterOperationTypeEnum,
  type Model,
  ModelApi,
  ModelsApi,
  RangesApi,
  ResponseError,
  type SearchEngine,
  type SearchInput,
  type SeededModel,
  WebsitesApi,
  WellKnownApi,
  WorkstreamSummariesApi,
} from '@pieces.app/pieces-os-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const PORT_LINE_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// The server as a child process

interface RunningServer {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  /** Everything the child wrote, for failure messages. */
  output(): string;
}

/** Starts `tsx examples/server.ts` on port 0 and resolves once it prints its `Listening on` line. */
function startServer(dataDir: string): Promise<RunningServer> {
  const child = spawn(TSX, ['examples/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stopping it also stops the node process tsx starts.
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      stopServer(child).finally(() => reject(new Error(`${reason}\n--- server output ---\n${output}`)));
    };
    const timer = setTimeout(() => fail(`No "Listening on" line within ${PORT_LINE_TIMEOUT_MS} ms.`), PORT_LINE_TIMEOUT_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(output);
      if (match && Number(match[2]) > 0) {
        clearTimeout(timer);
        resolve({ child, baseUrl: match[1]!, output: () => output });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', (error) => fail(`Could not start the server: ${error.message}`));
    child.once('exit', (code, signal) => fail(`The server exited before listening (code ${code}, signal ${signal}).`));
  });
}

/** SIGTERM (the server closes its store and exits), then SIGKILL if it has not exited in time. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child.pid, 'SIGTERM');
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(true), EXIT_TIMEOUT_MS).unref()),
  ]);
  if (timedOut) {
    signalGroup(child.pid, 'SIGKILL');
    await exited;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

// ---------------------------------------------------------------------------------------------
// The client

/** The requests the server refused during the current test, for failure messages. */
let refused: string[] = [];

function clientsFor(basePath: string) {
  const configuration = new Configuration({
    basePath,
    middleware: [
      {
        // `response` is a clone: reading it leaves the client's copy intact.
        post: async ({ url, init, response }) => {
          if (!response.ok) refused.push(`${init.method ?? 'GET'} ${url} -> ${response.status} ${await response.text()}`);
        },
      },
    ],
  });
  return {
    conversation: new ConversationApi(configuration),
    conversations: new ConversationsApi(configuration),
    messages: new ConversationMessagesApi(configuration),
    models: new ModelsApi(configuration),
    model: new ModelApi(configuration),
    wellKnown: new WellKnownApi(configuration),
    anchors: new AnchorsApi(configuration),
    assets: new AssetsApi(configuration),
    websites: new WebsitesApi(configuration),
    ranges: new RangesApi(configuration),
    workstreamSummaries: new WorkstreamSummariesApi(configuration),
    annotations: new AnnotationsApi(configuration),
  };
}
type Clients = ReturnType<typeof clientsFor>;

/** Awaits `call`, expecting the client to throw a ResponseError with `status`; answers the error body. */
async function expectStatus(call: Promise<unknown>, status: number | ((status: number) => boolean)): Promise<unknown> {
  let value: unknown;
  try {
    value = await call;
  } catch (error) {
    expect(error, `expected a ResponseError, got ${String(error)}`).toBeInstanceOf(ResponseError);
    const response = (error as ResponseError).response;
    const text = await response.text();
    const ok = typeof status === 'number' ? response.status === status : status(response.status);
    expect(ok, `status ${response.status} (body ${text}) is not the expected ${String(status)}`).toBe(true);
    return text ? JSON.parse(text) : undefined;
  }
  throw new Error(`expected the call to fail with ${String(status)}, it answered ${JSON.stringify(value)}`);
}

const is4xx = (status: number) => status >= 400 && status < 500;
const ids = (list: { iterable?: { id: string }[] } | undefined) => (list?.iterable ?? []).map((item) => item.id);
const at = (iso: string) => ({ value: new Date(iso) });

const TEXTS = [
  'How do I read a JSON file in Node without blocking the event loop?',
  'Use fs.promises.readFile and then JSON.parse on the text; await it inside an async function.',
  'And how do I write it back atomically so a crash never leaves half a file?',
];

const application = {
  id: 'conformance-app',
  name: 'VS_CODE' as const,
  version: '1.0.0',
  platform: 'LINUX' as const,
  onboarded: true,
  privacy: 'OPEN' as const,
};

const customModel: SeededModel = {
  version: '1.0',
  created: at('2026-01-01T00:00:00.000Z'),
  name: 'Conformance Llama',
  description: 'A custom local LLM registered by the conformance suite.',
  cloud: false,
  type: 'BALANCED',
  usage: 'CODE_CONVERSATION',
  foundation: 'LLAMA_3_8B',
  provider: 'META',
  unique: 'conformance-llama-3-8b',
};

// ---------------------------------------------------------------------------------------------

describe('the official client against the example server', () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  let api: Clients;

  // Shared across the (sequential) tests below.
  let conversationId: string;
  let messageIds: string[] = [];
  let renamedTo: string;
  let summaryAnnotationId: string;
  let customModelId: string;
  const linked: Record<string, string> = {};

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'cms-conformance-'));
    server = await startServer(dataDir);
    api = clientsFor(server.baseUrl);
  }, PORT_LINE_TIMEOUT_MS + 5_000);

  beforeEach(({ onTestFailed }) => {
    refused = [];
    onTestFailed(() => {
      if (refused.length > 0) console.error(`Requests refused during this test:\n${refused.join('\n')}`);
    });
  });

  afterAll(async () => {
    if (server) await stopServer(server.child);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, EXIT_TIMEOUT_MS + 5_000);

  it('listens on 127.0.0.1 only', () => {
    expect(server!.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('WellKnownApi: health answers ok, version the package version', async () => {
    expect(await api.wellKnown.getWellKnownHealth()).toBe('ok');
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await api.wellKnown.getWellKnownVersion()).toBe(version);
  });

  describe('creating what the operations act on', () => {
    it('conversationsCreateSpecificConversation seeds a conversation with messages, in order', async () => {
      const created = await api.conversations.conversationsCreateSpecificConversation({
        seededConversation: {
          type: 'COPILOT',
          messages: [
            { role: 'USER', fragment: { string: { raw: TEXTS[0] } } },
            { role: 'ASSISTANT', fragment: { string: { raw: TEXTS[1] } } },
          ],
        },
      });
      expect(created.id).toEqual(expect.any(String));
      expect(created.type).toBe('COPILOT');
      expect(created.created.value).toBeInstanceOf(Date);
      expect(Number.isNaN(created.created.value.getTime())).toBe(false);
      const messages = created.messages.iterable.map((item) => item.reference);
      expect(messages.map((message) => message?.fragment?.string?.raw)).toEqual([TEXTS[0], TEXTS[1]]);
      expect(messages.map((message) => message?.role)).toEqual(['USER', 'ASSISTANT']);
      expect(messages.every((message) => message?.conversation.id === created.id)).toBe(true);
      conversationId = created.id;
      messageIds = created.messages.iterable.map((item) => item.id);
    });

    it('messagesCreateSpecificMessage appends a message to the conversation', async () => {
      const message = await api.messages.messagesCreateSpecificMessage({
        seededConversationMessage: {
          role: 'USER',
          fragment: { string: { raw: TEXTS[2] } },
          conversation: { id: conversationId },
        },
      });
      expect(message.conversation.id).toBe(conversationId);
      expect(message.role).toBe('USER');
      expect(message.fragment?.string?.raw).toBe(TEXTS[2]);
      messageIds.push(message.id);
    });

    it('conversationsSnapshot lists the conversation', async () => {
      const snapshot = await api.conversations.conversationsSnapshot();
      const found = snapshot.iterable.find((conversation) => conversation.id === conversationId);
      expect(found).toBeDefined();
      expect(ids(found!.messages)).toEqual(messageIds);
    });
  });

  describe('reading a conversation', () => {
    it('conversationGetSpecificConversation includes message text when transferables is absent or true', async () => {
      for (const transferables of [undefined, true]) {
        const conversation = await api.conversation.conversationGetSpecificConversation({
          conversation: conversationId,
          ...(transferables === undefined ? {} : { transferables }),
        });
        expect(conversation.id).toBe(conversationId);
        expect(ids(conversation.messages)).toEqual(messageIds);
        expect(conversation.messages.iterable.map((item) => item.reference?.fragment?.string?.raw)).toEqual(TEXTS);
      }
    });

    it('conversationGetSpecificConversation leaves message text out when transferables is false', async () => {
      const conversation = await api.conversation.conversationGetSpecificConversation({
        conversation: conversationId,
        transferables: false,
      });
      expect(conversation.id).toBe(conversationId);
      // Same records, same order, without the transferable content.
      expect(ids(conversation.messages)).toEqual(messageIds);
      for (const item of conversation.messages.iterable) {
        expect(item.reference?.role).toEqual(expect.any(String));
        expect(item.reference?.fragment?.string?.raw).toBeUndefined();
      }
      expect(JSON.stringify(conversation)).not.toContain(TEXTS[0]);
    });

    it('conversationGetSpecificConversation answers 410 for an unknown conversation', async () => {
      await expectStatus(api.conversation.conversationGetSpecificConversation({ conversation: 'no-such-conversation' }), 410);
      // The client percent-encodes ids: one with a slash and a space is still one unknown id.
      await expectStatus(api.conversation.conversationGetSpecificConversation({ conversation: 'a/b c' }), 410);
    });

    it('conversationSpecificConversationMessages lists the messages in order with their indices', async () => {
      for (const transferables of [undefined, true]) {
        const listing = await api.conversation.conversationSpecificConversationMessages({
          conversation: conversationId,
          ...(transferables === undefined ? {} : { transferables }),
        });
        expect(listing.iterable.map((message) => message.id)).toEqual(messageIds);
        expect(listing.iterable.map((message) => message.fragment?.string?.raw)).toEqual(TEXTS);
        expect(listing.iterable.map((message) => message.role)).toEqual(['USER', 'ASSISTANT', 'USER']);
        if (listing.indices) {
          messageIds.forEach((id, index) => expect(listing.indices![id]).toBe(index));
        }
      }
    });

    it('conversationSpecificConversationMessages with transferables false omits the text', async () => {
      const listing = await api.conversation.conversationSpecificConversationMessages({
        conversation: conversationId,
        transferables: false,
      });
      expect(listing.iterable.map((message) => message.id)).toEqual(messageIds);
      expect(listing.iterable.every((message) => message.fragment?.string?.raw === undefined)).toBe(true);
    });

    it('conversationSpecificConversationMessages answers 404 for an unknown conversation', async () => {
      await expectStatus(api.conversation.conversationSpecificConversationMessages({ conversation: 'no-such-conversation' }), 404);
    });
  });

  describe('rename, scores, summarize, update', () => {
    it('conversationSpecificConversationRename names the conversation and stores the name', async () => {
      const renamed = await api.conversation.conversationSpecificConversationRename({ conversation: conversationId });
      expect(renamed.id).toBe(conversationId);
      expect(typeof renamed.name).toBe('string');
      expect(renamed.name!.trim()).not.toBe('');
      expect(renamed.messages.iterable.map((item) => item.reference?.fragment?.string?.raw)).toEqual(TEXTS);
      renamedTo = renamed.name!;

      const stored = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
      expect(stored.name).toBe(renamedTo);
    });

    it('conversationSpecificConversationRename honours transferables false and answers 404 when unknown', async () => {
      const renamed = await api.conversation.conversationSpecificConversationRename({
        conversation: conversationId,
        transferables: false,
      });
      expect(renamed.name?.trim()).not.toBe('');
      expect(renamed.messages.iterable.every((item) => item.reference?.fragment?.string?.raw === undefined)).toBe(true);
      renamedTo = renamed.name!;
      await expectStatus(api.conversation.conversationSpecificConversationRename({ conversation: 'no-such-conversation' }), 404);
    });

    it('conversationScoresIncrement with a body increments the conversation score', async () => {
      const before = (await api.conversation.conversationGetSpecificConversation({ conversation: conversationId })).score;
      expect(before?.reuse ?? 0).toBe(0);

      await api.conversation.conversationScoresIncrement({
        conversation: conversationId,
        seededScoreIncrement: { conversation: { reuse: true, priority: true } },
      });
      await api.conversation.conversationScoresIncrement({
        conversation: conversationId,
        seededScoreIncrement: { conversation: { reuse: true } },
      });

      const after = (await api.conversation.conversationGetSpecificConversation({ conversation: conversationId })).score;
      expect(after?.reuse).toBe(2);
      expect(after?.priority).toBe(1);
      expect(after?.manual).toEqual(expect.any(Number));
      expect(after?.automatic).toEqual(expect.any(Number));
    });

    it('conversationScoresIncrement without a body (empty JSON request) answers 204 and changes nothing', async () => {
      await api.conversation.conversationScoresIncrement({ conversation: conversationId });
      const score = (await api.conversation.conversationGetSpecificConversation({ conversation: conversationId })).score;
      expect(score?.reuse).toBe(2);
      expect(score?.priority).toBe(1);
      await expectStatus(api.conversation.conversationScoresIncrement({ conversation: 'no-such-conversation' }), 404);
    });

    it('conversationSummarize without input stores a SUMMARY annotation listed on the conversation', async () => {
      const output = await api.conversation.conversationSummarize({ conversation: conversationId });
      expect(output.conversation.id).toBe(conversationId);
      expect(output.annotation.id).toEqual(expect.any(String));
      summaryAnnotationId = output.annotation.id;

      const conversation = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
      const listed = conversation.annotations?.iterable.find((item) => item.id === summaryAnnotationId);
      expect(listed, 'the summary annotation is listed in the conversation').toBeDefined();
      expect(listed!.reference?.type).toBe('SUMMARY');
      expect(listed!.reference?.text?.trim()).not.toBe('');
      expect(listed!.reference?.conversation?.id).toBe(conversationId);

      const annotations = await api.annotations.annotationsSnapshot();
      const stored = annotations.iterable.find((annotation) => annotation.id === summaryAnnotationId);
      expect(stored?.type).toBe('SUMMARY');
      expect(stored?.text).toBe(listed!.reference?.text);
    });

    it('conversationSummarize with input summarizes the named messages into a second annotation', async () => {
      const output = await api.conversation.conversationSummarize({
        conversation: conversationId,
        conversationSummarizeInput: { messages: { iterable: [{ id: messageIds[0]! }, { id: messageIds[1]! }] } },
      });
      expect(output.conversation.id).toBe(conversationId);
      expect(output.annotation.id).not.toBe(summaryAnnotationId);

      const conversation = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
      const summaries = (conversation.annotations?.iterable ?? []).filter((item) => item.reference?.type === 'SUMMARY');
      expect(summaries.map((item) => item.id)).toEqual(expect.arrayContaining([summaryAnnotationId, output.annotation.id]));
      const second = summaries.find((item) => item.id === output.annotation.id);
      expect(second?.reference?.text?.trim()).not.toBe('');
    });

    it('conversationSummarize answers 404 for an unknown conversation', async () => {
      await expectStatus(api.conversation.conversationSummarize({ conversation: 'no-such-conversation' }), 404);
    });

    it('conversationUpdate applies the changes of a conversation read without transferables, keeping message text', async () => {
      // What the Python wrapper does: read with transferables false, change a field, send it back.
      const current = await api.conversation.conversationGetSpecificConversation({
        conversation: conversationId,
        transferables: false,
      });
      const updated = await api.conversation.conversationUpdate({
        transferables: false,
        conversation: { ...current, name: 'Reading and writing JSON files', favorited: true },
      });
      expect(updated.id).toBe(conversationId);
      expect(updated.name).toBe('Reading and writing JSON files');
      expect(updated.favorited).toBe(true);
      expect(updated.updated.value.getTime()).toBeGreaterThanOrEqual(current.updated.value.getTime());

      const stored = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
      expect(stored.name).toBe('Reading and writing JSON files');
      expect(stored.favorited).toBe(true);
      expect(stored.messages.iterable.map((item) => item.reference?.fragment?.string?.raw)).toEqual(TEXTS);
      expect(ids(stored.annotations)).toContain(summaryAnnotationId);
      expect(stored.score?.reuse).toBe(2);
    });

    it('conversationUpdate answers 404 for an unknown conversation', async () => {
      const current = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
      await expectStatus(api.conversation.conversationUpdate({ conversation: { ...current, id: 'no-such-conversation' } }), 404);
    });
  });

  describe('annotationsCreateNewAnnotation', () => {
    it('creates an annotation on the conversation, listed with it', async () => {
      const annotation = await api.annotations.annotationsCreateNewAnnotation({
        seededAnnotation: { type: 'COMMENT', text: 'Worth a second look.', conversation: conversationId },
      });
      expect(annotation.type).toBe('COMMENT');
      expect(annotation.text).toBe('Worth a second look.');
      expect(annotation.conversation?.id).toBe(conversationId);
      const conversation = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
      const listed = conversation.annotations?.iterable.find((item) => item.id === annotation.id);
      expect(listed?.reference?.text).toBe('Worth a second look.');
    });
  });

  describe('associating and disassociating', () => {
    /** Reads the conversation and answers the ids of the list a link kind lives in. */
    async function conversationSide(list: (conversation: Conversation) => { iterable?: { id: string }[] } | undefined) {
      return ids(list(await api.conversation.conversationGetSpecificConversation({ conversation: conversationId })));
    }

    /**
     * Associates, checks both records list each other, disassociates, checks neither does, and
     * associates again for the tests that follow.
     */
    async function expectBothSidesFollow(
      target: string,
      link: {
        associate: () => Promise<unknown>;
        disassociate: () => Promise<unknown>;
        conversationList: (conversation: Conversation) => { iterable?: { id: string }[] } | undefined;
        /** The target's `conversations` ids, read back through the client. */
        targetSide: () => Promise<string[]>;
      },
    ) {
      await link.associate();
      expect(await conversationSide(link.conversationList)).toContain(target);
      expect(await link.targetSide()).toContain(conversationId);

      await link.disassociate();
      expect(await conversationSide(link.conversationList)).not.toContain(target);
      expect(await link.targetSide()).not.toContain(conversationId);

      await link.associate();
    }

    it('anchors: conversationAssociateAnchor / conversationDisassociateAnchor update both records', async () => {
      const anchor = await api.anchors.anchorsCreateNewAnchor({
        seededAnchor: { type: 'FILE', fullpath: '/home/me/project/src/index.ts' },
      });
      expect(anchor.type).toBe('FILE');
      await expectBothSidesFollow(anchor.id, {
        associate: () => api.conversation.conversationAssociateAnchor({ conversation: conversationId, anchor: anchor.id }),
        disassociate: () => api.conversation.conversationDisassociateAnchor({ conversation: conversationId, anchor: anchor.id }),
        conversationList: (c) => c.anchors,
        targetSide: async () => ids((await api.anchors.anchorsSnapshot()).iterable.find((other) => other.id === anchor.id)?.conversations),
      });
      linked.anchor = anchor.id;
    });

    const assetContent = 'const data = JSON.parse(await readFile(file, "utf8"));';
    let clientAsset: string | undefined;

    it("assetsCreateNewAsset creates an asset from the client's Seed body ({ type, asset: SeededAsset })", async () => {
      const asset = await api.assets.assetsCreateNewAsset({
        seed: {
          type: 'SEEDED_ASSET',
          asset: { application, format: { fragment: { string: { raw: assetContent } } }, metadata: { name: 'Read a JSON file' } },
        },
      });
      expect(asset.id).toEqual(expect.any(String));
      expect(asset.name).toBe('Read a JSON file');
      expect(asset.formats.iterable?.[0]?.fragment?.string?.raw).toBe(assetContent);
      clientAsset = asset.id;
    });

    it('assets: conversationAssociateAsset / conversationDisassociateAsset update both records', async () => {
      const asset = clientAsset!;
      expect(asset, 'the asset created through the client above').toBeDefined();
      await expectBothSidesFollow(asset, {
        associate: () => api.conversation.conversationAssociateAsset({ conversation: conversationId, asset }),
        disassociate: () => api.conversation.conversationDisassociateAsset({ conversation: conversationId, asset }),
        conversationList: (c) => c.assets,
        targetSide: async () => ids((await api.assets.assetsSnapshot()).iterable.find((other) => other.id === asset)?.conversations),
      });
      linked.asset = asset;
    });

    it('websites: conversationAssociateWebsite / conversationDisassociateWebsite update both records', async () => {
      const website = await api.websites.websitesCreateNewWebsite({
        seededWebsite: { url: 'https://nodejs.org/api/fs.html', name: 'File system | Node.js' },
      });
      expect(website.url).toBe('https://nodejs.org/api/fs.html');
      await expectBothSidesFollow(website.id, {
        associate: () => api.conversation.conversationAssociateWebsite({ conversation: conversationId, website: website.id }),
        disassociate: () => api.conversation.conversationDisassociateWebsite({ conversation: conversationId, website: website.id }),
        conversationList: (c) => c.websites,
        targetSide: async () =>
          ids((await api.websites.websitesSnapshot()).iterable.find((other) => other.id === website.id)?.conversations),
      });
      linked.website = website.id;
    });

    it('workstream summaries: conversationAssociateWorkstreamSummary / conversationDisassociateWorkstreamSummary update both records', async () => {
      const summary = await api.workstreamSummaries.workstreamSummariesCreateNewWorkstreamSummary({
        seededWorkstreamSummary: {
          name: 'Morning: JSON persistence',
          model: {
            id: 'some-model',
            version: '1.0',
            created: at('2026-01-01T00:00:00.000Z'),
            name: 'Some model',
            cloud: false,
            type: 'BALANCED',
            usage: 'CODE_CONVERSATION',
          },
        },
      });
      expect(summary.name).toBe('Morning: JSON persistence');
      await expectBothSidesFollow(summary.id, {
        associate: () =>
          api.conversation.conversationAssociateWorkstreamSummary({ conversation: conversationId, workstreamSummary: summary.id }),
        disassociate: () =>
          api.conversation.conversationDisassociateWorkstreamSummary({ conversation: conversationId, workstreamSummary: summary.id }),
        conversationList: (c) => c.summaries,
        targetSide: async () =>
          ids(
            (await api.workstreamSummaries.workstreamSummariesSnapshot()).iterable.find((other) => other.id === summary.id)?.conversations,
          ),
      });
      linked.workstreamSummary = summary.id;
    });

    it('temporal grounding: conversationAssociate/DisassociateGroundingTemporalRangeWorkstream update both records', async () => {
      const range = await api.ranges.rangesCreateNewRange({
        seededRange: { from: at('2026-01-01T08:00:00.000Z'), to: at('2026-01-01T12:00:00.000Z'), between: true },
      });
      expect(range.id).toEqual(expect.any(String));
      await expectBothSidesFollow(range.id, {
        associate: () =>
          api.conversation.conversationAssociateGroundingTemporalRangeWorkstream({ conversation: conversationId, range: range.id }),
        disassociate: () =>
          api.conversation.conversationDisassociateGroundingTemporalRangeWorkstream({ conversation: conversationId, range: range.id }),
        conversationList: (c) => c.grounding?.temporal?.workstreams,
        targetSide: async () => ids((await api.ranges.rangesSnapshot()).iterable.find((other) => other.id === range.id)?.conversations),
      });
      linked.range = range.id;
    });

    it('message grounding: conversationGroundingMessagesAssociate/DisassociateMessage', async () => {
      // The message-side field is not part of the client's ConversationMessage: the conversation side shows the link.
      const message = messageIds[1]!;
      await api.conversation.conversationGroundingMessagesAssociateMessage({ conversation: conversationId, message });
      expect(await conversationSide((c) => c.grounding?.messages)).toEqual([message]);

      await api.conversation.conversationGroundingMessagesDisassociateMessage({ conversation: conversationId, message });
      expect(await conversationSide((c) => c.grounding?.messages)).toEqual([]);

      await api.conversation.conversationGroundingMessagesAssociateMessage({ conversation: conversationId, message });
      linked.message = message;
    });

    it("accepts the spec's /delete spelling for anchors and assets besides the client's /disassociate", async () => {
      const post = (route: string) => fetch(`${server!.baseUrl}/conversation/${conversationId}/${route}`, { method: 'POST' });
      const anchor = await api.anchors.anchorsCreateNewAnchor({ seededAnchor: { type: 'FILE', fullpath: '/tmp/other.ts' } });
      await api.conversation.conversationAssociateAnchor({ conversation: conversationId, anchor: anchor.id });
      expect((await post(`anchors/delete/${anchor.id}`)).status).toBe(204);
      expect(await conversationSide((c) => c.anchors)).not.toContain(anchor.id);
      await api.anchors.anchorsDeleteSpecificAnchor({ anchor: anchor.id });

      // The asset linked by the assets test (when creating it failed, that test reports why).
      if (linked.asset) {
        expect((await post(`assets/delete/${linked.asset}`)).status).toBe(204);
        expect(await conversationSide((c) => c.assets)).not.toContain(linked.asset);
        await api.conversation.conversationAssociateAsset({ conversation: conversationId, asset: linked.asset });
      }
    });

    it('answers 404 when either end of a link does not exist', async () => {
      await expectStatus(api.conversation.conversationAssociateAnchor({ conversation: conversationId, anchor: 'no-such-anchor' }), 404);
      await expectStatus(
        api.conversation.conversationAssociateWebsite({ conversation: 'no-such-conversation', website: linked.website! }),
        404,
      );
      await expectStatus(
        api.conversation.conversationGroundingMessagesAssociateMessage({ conversation: conversationId, message: 'no-such-message' }),
        404,
      );
    });
  });

  describe('models', () => {
    it('modelsSnapshot lists the built-in model, not custom', async () => {
      const snapshot = await api.models.modelsSnapshot();
      expect(snapshot.iterable.length).toBeGreaterThanOrEqual(1);
      const builtin = snapshot.iterable.find((model) => model.custom !== true);
      expect(builtin).toBeDefined();
      expect(builtin!.name).toEqual(expect.any(String));
      expect(builtin!.created.value).toBeInstanceOf(Date);
    });

    it('modelsCreateNewModel creates a custom model that the snapshot lists', async () => {
      const model = await api.models.modelsCreateNewModel({ seededModel: customModel });
      expect(model.id).toEqual(expect.any(String));
      expect(model.custom).toBe(true);
      expect(model.name).toBe(customModel.name);
      expect(model.usage).toBe('CODE_CONVERSATION');
      expect(model.foundation).toBe('LLAMA_3_8B');
      expect(model.unique).toBe(customModel.unique);
      customModelId = model.id;

      const snapshot = await api.models.modelsSnapshot();
      const listed = snapshot.iterable.find((other) => other.id === customModelId);
      expect(listed?.custom).toBe(true);
      expect(listed?.name).toBe(customModel.name);
    });

    it('modelsCreateNewModel refuses a duplicate with 409 and creates nothing', async () => {
      const before = (await api.models.modelsSnapshot()).iterable.length;
      await expectStatus(api.models.modelsCreateNewModel({ seededModel: customModel }), 409);
      expect((await api.models.modelsSnapshot()).iterable.length).toBe(before);
    });

    it('modelsCreateNewModel without a body answers 4xx', async () => {
      await expectStatus(api.models.modelsCreateNewModel(), is4xx);
    });

    it('modelsDeleteSpecificModel refuses the built-in model with a 4xx', async () => {
      const builtin = (await api.models.modelsSnapshot()).iterable.find((model) => model.custom !== true)!;
      await expectStatus(api.models.modelsDeleteSpecificModel({ model: builtin.id }), is4xx);
      expect((await api.models.modelsSnapshot()).iterable.map((model) => model.id)).toContain(builtin.id);
    });

    it('modelsDeleteSpecificModelCache of an LLM custom model answers {model:{id}}, with and without a body', async () => {
      const withBody = await api.models.modelsDeleteSpecificModelCache({ model: customModelId, modelDeleteCacheInput: {} });
      expect(withBody).toEqual({ model: { id: customModelId } });
      const withoutBody = await api.models.modelsDeleteSpecificModelCache({ model: customModelId });
      expect(withoutBody.model.id).toBe(customModelId);
      const listed = (await api.models.modelsSnapshot()).iterable.find((model) => model.id === customModelId);
      expect(listed?.downloaded).not.toBe(true);
    });

    it('modelsDeleteSpecificModelCache refuses a non-LLM model (4xx) and an unknown one (404)', async () => {
      const embedder = await api.models.modelsCreateNewModel({
        seededModel: { ...customModel, name: 'Conformance embedder', unique: 'conformance-embedder', usage: 'TEXT_EMBEDDING' },
      });
      await expectStatus(api.models.modelsDeleteSpecificModelCache({ model: embedder.id }), is4xx);
      await expectStatus(api.models.modelsDeleteSpecificModelCache({ model: 'no-such-model' }), 404);
      await api.models.modelsDeleteSpecificModel({ model: embedder.id });
    });

    it('unloadModels answers and leaves no model loaded', async () => {
      await api.models.unloadModels();
      const snapshot = await api.models.modelsSnapshot();
      expect(snapshot.iterable.every((model: Model) => model.loaded !== true)).toBe(true);
    });

    it('ModelApi: modelsSpecificModelSnapshot, load and unload the built-in model with its live state; 404 for an unknown one', async () => {
      const builtin = (await api.models.modelsSnapshot()).iterable.find((model) => model.custom !== true)!;
      expect(await api.model.modelsSpecificModelSnapshot({ model: builtin.id })).toMatchObject({ id: builtin.id, custom: false });
      expect(await api.model.modelSpecificModelLoad({ model: builtin.id })).toMatchObject({ id: builtin.id, loaded: true });
      expect(await api.model.modelSpecificModelLoad({ model: builtin.id })).toMatchObject({ loaded: true });
      expect(await api.model.modelSpecificModelUnload({ model: builtin.id })).toMatchObject({ id: builtin.id, loaded: false });
      await expectStatus(api.model.modelsSpecificModelSnapshot({ model: 'no-such-model' }), 404);
    });

    it('ModelApi: download of a model without a source is refused (4xx); progress, cancel and update answer', async () => {
      await expectStatus(api.model.modelSpecificModelDownload({ model: customModelId }), is4xx);
      expect(await api.model.modelSpecificModelDownloadProgress({ model: customModelId })).toMatchObject({ status: 'UNKNOWN' });
      expect(await api.model.modelSpecificModelDownloadCancel({ model: customModelId })).toMatchObject({
        id: customModelId,
        downloading: false,
      });
      const current = await api.model.modelsSpecificModelSnapshot({ model: customModelId });
      const updated = await api.model.modelUpdate({ model: { ...current, name: 'Renamed by the client' } });
      expect(updated).toMatchObject({ id: customModelId, name: 'Renamed by the client', custom: true });
      expect((await api.model.modelsSpecificModelSnapshot({ model: customModelId })).name).toBe('Renamed by the client');
      // Back as it was: the restart test below finds the model under its first name.
      expect(await api.model.modelUpdate({ model: current })).toMatchObject({ name: customModel.name });
    });

    it('modelsDeleteSpecificModel deletes a custom model; deleting it again answers 404', async () => {
      const doomed = await api.models.modelsCreateNewModel({
        seededModel: { ...customModel, name: 'Short-lived', unique: 'conformance-short-lived' },
      });
      await api.models.modelsDeleteSpecificModel({ model: doomed.id });
      expect((await api.models.modelsSnapshot()).iterable.map((model) => model.id)).not.toContain(doomed.id);
      await expectStatus(api.models.modelsDeleteSpecificModel({ model: doomed.id }), 404);
    });
  });

  describe('deleting a conversation', () => {
    it('conversationsSnapshot reads a page at a time: a middleware asks for ?limit=, the Link header names the next page', async () => {
      for (const name of ['Paged one', 'Paged two']) {
        await api.conversations.conversationsCreateSpecificConversation({ seededConversation: { type: 'COPILOT', name } });
      }
      const everything = (await api.conversations.conversationsSnapshot({ transferables: false })).iterable.map((c) => c.id);
      expect(everything.length).toBeGreaterThanOrEqual(3);
      let pageUrl: string | undefined = `${server!.baseUrl}/conversations?transferables=false&limit=2`;
      const paged = new ConversationsApi(
        new Configuration({ basePath: server!.baseUrl, middleware: [{ pre: async ({ init }) => ({ url: pageUrl!, init }) }] }),
      );
      const seen: string[] = [];
      for (let pages = 0; pageUrl && pages < 10; pages++) {
        const response = await paged.conversationsSnapshotRaw({ transferables: false });
        seen.push(...(await response.value()).iterable.map((c) => c.id));
        const next = /^<([^>]+)>; rel="next"$/.exec(response.raw.headers.get('link') ?? '')?.[1];
        pageUrl = next ? `${server!.baseUrl}${next}` : undefined;
      }
      expect(seen).toEqual(everything);
    });

    it('conversationsDeleteSpecificConversation removes it; reading it then answers 410', async () => {
      const doomed = await api.conversations.conversationsCreateSpecificConversation({
        seededConversation: { type: 'COPILOT', name: 'Doomed', messages: [{ role: 'USER', fragment: { string: { raw: 'bye' } } }] },
      });
      await api.conversation.conversationAssociateWebsite({ conversation: doomed.id, website: linked.website! });
      await api.conversations.conversationsDeleteSpecificConversation({ conversation: doomed.id });
      await expectStatus(api.conversation.conversationGetSpecificConversation({ conversation: doomed.id }), 410);
      const snapshot = await api.conversations.conversationsSnapshot();
      expect(snapshot.iterable.map((conversation) => conversation.id)).not.toContain(doomed.id);
      const website = (await api.websites.websitesSnapshot()).iterable.find((other) => other.id === linked.website);
      expect(ids(website?.conversations)).not.toContain(doomed.id);
      await expectStatus(api.conversations.conversationsDeleteSpecificConversation({ conversation: doomed.id }), 404);
    });
  });

  describe('search', () => {
    const input = (query: string, more: Partial<SearchEngine> = {}): SearchInput => ({ engines: { iterable: [{ query, ...more }] } });

    it('searchConversations finds the conversation by its words, with the client shapes and the matching messages', async () => {
      const found = await api.conversations.searchConversations({ searchInput: input('atomically crash') });
      const hit = found.iterable[0]!;
      expect(hit.identifier).toBe(conversationId);
      expect(hit.conversation?.id).toBe(conversationId);
      expect(hit.similarity).toBeGreaterThan(0);
      expect(hit.similarity).toBeLessThanOrEqual(1);
      expect(hit.messages?.iterable.map((message) => message.identifier)).toContain(messageIds[2]);
      // transferables=false: identifiers and scores, no records.
      const bare = await api.conversations.searchConversations({ searchInput: input('atomically crash'), transferables: false });
      expect(bare.iterable[0]!.conversation).toBeUndefined();
      expect(bare.iterable[0]!.identifier).toBe(conversationId);
    });

    it('searchMessages and searchConversationSpecificMessages rank messages, exact when verbatim', async () => {
      const found = await api.messages.searchMessages({ searchInput: input('event loop') });
      expect(found.iterable[0]!.identifier).toBe(messageIds[0]);
      expect(found.iterable[0]!.exact).toBe(true);
      expect(found.iterable[0]!.message?.fragment?.string?.raw).toBe(TEXTS[0]);
      const inside = await api.conversation.searchConversationSpecificMessages({
        conversation: conversationId,
        searchInput: input('JSON.parse'),
      });
      expect(inside.iterable[0]!.identifier).toBe(messageIds[1]);
      expect(inside.iterable[0]!.exact).toBe(true);
      await expectStatus(
        api.conversation.searchConversationSpecificMessages({ conversation: 'no-such-conversation', searchInput: input('x') }),
        404,
      );
    });

    it('combines engines with AND and filters by time, as the client sends them', async () => {
      const both = await api.messages.searchMessages({
        searchInput: { engines: { type: FilterOperationTypeEnum.And, iterable: [{ query: 'read' }, { query: 'blocking' }] } },
        transferables: false,
      });
      expect(both.iterable.map((message) => message.identifier)).toEqual([messageIds[0]]);
      const future = await api.messages.searchMessages({
        searchInput: input('JSON', { temporal: { created: { from: { value: new Date(Date.now() + 86_400_000) } } } }),
      });
      expect(future.iterable).toEqual([]);
    });

    it('answers 400 naming the field for a body the client could not have sent', async () => {
      const response = await fetch(`${server!.baseUrl}/messages/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ engines: { iterable: [{ query: 'x', fullText: { exact: true } }] } }),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('fullText');
    });
  });

  describe('persistence across a restart', () => {
    it(
      'finds everything again after the server restarts on the same data folder',
      async () => {
        await stopServer(server!.child);
        server = await startServer(dataDir);
        api = clientsFor(server.baseUrl);

        const conversation = await api.conversation.conversationGetSpecificConversation({ conversation: conversationId });
        expect(conversation.name).toBe('Reading and writing JSON files');
        expect(conversation.favorited).toBe(true);
        expect(conversation.messages.iterable.map((item) => item.reference?.fragment?.string?.raw)).toEqual(TEXTS);
        expect(conversation.score?.reuse).toBe(2);
        const summary = conversation.annotations?.iterable.find((item) => item.id === summaryAnnotationId);
        expect(summary?.reference?.type).toBe('SUMMARY');
        expect(summary?.reference?.text?.trim()).not.toBe('');
        // Every link made above that is still in place (a failed link test is reported there).
        const lists: Record<string, { iterable?: { id: string }[] } | undefined> = {
          anchor: conversation.anchors,
          asset: conversation.assets,
          website: conversation.websites,
          workstreamSummary: conversation.summaries,
          range: conversation.grounding?.temporal?.workstreams,
          message: conversation.grounding?.messages,
        };
        expect(Object.keys(linked).length).toBeGreaterThan(0);
        for (const [kind, id] of Object.entries(linked)) expect(ids(lists[kind]), kind).toContain(id);

        const messages = await api.conversation.conversationSpecificConversationMessages({ conversation: conversationId });
        expect(messages.iterable.map((message) => message.id)).toEqual(messageIds);
        // The search index came back with the data.
        const searched = await api.messages.searchMessages({ searchInput: { engines: { iterable: [{ query: 'event loop' }] } } });
        expect(searched.iterable[0]?.identifier).toBe(messageIds[0]);

        const models = await api.models.modelsSnapshot();
        const custom = models.iterable.find((model) => model.id === customModelId);
        expect(custom?.custom).toBe(true);
        expect(custom?.name).toBe(customModel.name);
        await expectStatus(api.models.modelsCreateNewModel({ seededModel: customModel }), 409);
      },
      PORT_LINE_TIMEOUT_MS + EXIT_TIMEOUT_MS + 10_000,
    );
  });
});
