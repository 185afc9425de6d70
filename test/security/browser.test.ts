/**
 * A real browser against the HTTP server, proving its web-origin defences where they matter:
 *
 * - a page from another loopback port (another web origin on this machine; any web site's script
 *   is in the same position) tries what needs nobody's permission: no-cors fetches, a beacon, image
 *   and script tags, auto-submitted forms (the text/plain JSON trick included) and an iframe. The
 *   service refuses every one (403), the page reads nothing, and the conversations are as before;
 * - DNS rebinding: under a host name that now resolves to 127.0.0.1, neither a navigation nor
 *   script running in that (now "same-origin") site gets or changes anything;
 * - the same page works once its origin is in `allowedOrigins`: a preflighted JSON POST and a read.
 *
 * An attempt succeeds for the attacker if the page read anything of the answer or the service did
 * not refuse it (a status below 400): it carried out the change, or handed the data to the browser,
 * where it sits in a renderer process the attacker's page shares (ports do not count for a site). The service's answers come
 * from Node's HTTP diagnostics channel, so the test also sees the ones the browser hides.
 *
 * It drives Debian's headless Chromium (`apt-get install chromium`; .ci/run installs it) through
 * playwright-core, and is skipped, saying why, where /usr/bin/chromium is missing.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../adapters/hono/serve.js';
import { type Conversation, createService, type Service } from '../../src/index.js';
import { CHROMIUM, needs, unmet } from '../helpers/requirements.js';
import { screenshot } from '../helpers/screenshot.js';
import {
  attackerPageHtml,
  launchChromium,
  type PageResult,
  REBOUND_HOST,
  recordAnswers,
  type ServiceAnswer,
  startPageServer,
} from './browser-helpers.js';

/** Bound of each wait on the browser: a page load, the service's answers arriving. */
const WAIT_MS = 15_000;

/** An in-memory service on 127.0.0.1 with one conversation (the attacks aim at it), and a log of its answers. */
async function startService(allowedOrigins?: string[]) {
  const service = await createService();
  const seeded = await service.createConversation({
    type: 'COPILOT',
    name: 'Seeded',
    messages: [
      { role: 'USER', fragment: { string: { raw: 'How do I retry a flaky payment API in TypeScript?' } } },
      { role: 'ASSISTANT', fragment: { string: { raw: 'Use exponential backoff with full jitter.' } } },
    ],
  });
  const server = await startHttpServer(service, {
    port: 0,
    host: '127.0.0.1',
    ...(allowedOrigins ? { allowedOrigins } : {}),
    keepAliveTimeoutMs: 500,
    shutdownGraceMs: 1000,
  });
  return { service, server, seeded, log: recordAnswers(server.port) };
}

const conversations = async (service: Service): Promise<Conversation[]> => [...(await service.listConversations()).iterable];

/** Waits (bounded) for the page's attempts to finish and answers `window.results`. */
async function resultsOf(page: Page): Promise<PageResult[]> {
  // Eleven attempts of at most 5 s each in the worst case; far less when the service answers.
  await page.waitForFunction('window.done === true', undefined, { timeout: 4 * WAIT_MS });
  return (await page.evaluate('window.results')) as PageResult[];
}

/** The service's answers to one attempt: status, method and path, for a readable diff. */
const answersTo = (result: PageResult, answers: readonly ServiceAnswer[]) =>
  answers.filter((answer) => answer.attempt === result.attempt).map((answer) => `${answer.status} ${answer.method} ${answer.path}`);

/** A success for the attacker: the page read something, or the service did not refuse the request (status below 400). */
const succeeded = (result: PageResult, answers: readonly ServiceAnswer[]) =>
  result.read !== null || answers.some((answer) => answer.attempt === result.attempt && answer.status < 400);

/**
 * Waits until the service has answered, from `answers[first]` on, `count` requests marked with an
 * attempt number (a beacon may land after the page is done), or WAIT_MS have passed: then the
 * assertions name the attempt missing.
 */
async function answered(answers: readonly ServiceAnswer[], first: number, count: number) {
  const deadline = Date.now() + WAIT_MS;
  while (answers.slice(first).filter((answer) => answer.attempt !== null).length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Every attempt of every test, for the one-line summary the README quotes.
const tally = { attempted: 0, succeeded: 0, parts: [] as string[] };
function count(part: string, attempted: number, succeededCount: number) {
  tally.attempted += attempted;
  tally.succeeded += succeededCount;
  tally.parts.push(`${attempted} ${part}`);
}

describe('a real browser (headless Chromium) against the HTTP server', needs(unmet(CHROMIUM)), () => {
  let browser: Browser | undefined;
  let pageServer: Awaited<ReturnType<typeof startPageServer>> | undefined;
  let guarded: Awaited<ReturnType<typeof startService>> | undefined;
  let allowing: Awaited<ReturnType<typeof startService>> | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    pageServer = await startPageServer();
    guarded = await startService();
    allowing = await startService([pageServer.origin]);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    if (tally.attempted > 0) {
      console.log(`browser attacks: ${tally.attempted} attempted, ${tally.succeeded} succeeded (${tally.parts.join(', ')})`);
    }
    await Promise.allSettled(contexts.map((context) => context.close()));
    await browser?.close();
    for (const running of [guarded, allowing]) {
      running?.log.stop();
      await running?.server.close();
      await running?.service.close();
    }
    await pageServer?.close();
  }, 30_000);

  /** A fresh browser context (no shared cookies or cache), closed in afterAll. */
  async function newPage() {
    const context = await browser!.newContext();
    context.setDefaultTimeout(WAIT_MS);
    contexts.push(context);
    return context.newPage();
  }

  it('refuses every request a page from another loopback origin makes, and nothing changes', async () => {
    const { service, server, seeded, log } = guarded!;
    const before = await conversations(service);
    const page = await newPage();

    const first = log.answers.length;
    const query = new URLSearchParams({ mode: 'attack', service: server.url, id: seeded.id });
    await page.goto(`${pageServer!.origin}/attack?${query}`);
    const results = await resultsOf(page);
    await answered(log.answers, first, results.length);
    const answers = log.answers.slice(first);

    await screenshot(page, 'browser-attacks.png', { fullPage: true });
    const wins = results.filter((result) => succeeded(result, answers));
    count('from a page on another loopback port', results.length, wins.length);

    expect(results).toHaveLength(11);
    // Nothing read, nothing carried out… (a failure shows the headers the service judged by)
    const answersWithHeaders = (result: PageResult) => answers.filter((answer) => answer.attempt === result.attempt);
    expect(wins.map((result) => ({ attempt: result.label, read: result.read, answers: answersWithHeaders(result) }))).toEqual([]);
    // …and that is the service's doing, not only the browser's: every attempt reached it and was refused.
    expect(results.map((result) => ({ attempt: result.label, answers: answersTo(result, answers) }))).toEqual(
      results.map((result) => ({ attempt: result.label, answers: [`403 ${result.method} ${result.path}`] })),
    );
    // Same ids, names, updated timestamps; nothing created, renamed or deleted.
    expect(await conversations(service)).toEqual(before);
  }, 120_000);

  it("refuses a DNS-rebound host name: neither a navigation nor that site's own script gets anything", async () => {
    const { service, server, seeded, log } = guarded!;
    const before = await conversations(service);
    const reboundOrigin = `http://${REBOUND_HOST}:${server.port}`;
    const page = await newPage();

    // The site's name now resolves to 127.0.0.1 (Chromium's --host-resolver-rules), so the browser
    // takes the service for that site and shows it whatever the service answers.
    const navigation = await page.goto(`${reboundOrigin}/conversations`);
    const shown = await page.content();
    const navigationSucceeded = navigation === null || navigation.status() < 400 || shown.includes(seeded.id);

    // The site's script, in a document of its origin: calls to the service are same-origin now, so
    // no CORS stands in the way, only the service's Host check. (The document is the service's own
    // 403 page, so Chromium counts it as loopback and its Local Network Access check, which a
    // browser may lack or the user may wave through, stays out of the way.)
    const first = log.answers.length;
    await page.setContent(attackerPageHtml({ mode: 'use', service: reboundOrigin }));
    const results = await resultsOf(page);
    await answered(log.answers, first, results.length);
    const wins = results.filter((result) => (result.status !== null && result.status < 400) || result.read?.includes(seeded.id));
    count('by DNS rebinding', 1 + results.length, wins.length + (navigationSucceeded ? 1 : 0));

    expect(navigation?.status()).toBe(403);
    expect(shown).not.toContain(seeded.id);
    expect(shown).not.toContain('Seeded');
    expect(results).toHaveLength(2);
    // Same-origin, so the page sees the service's own answer: the 403, and nothing of the data.
    expect(
      results.map((result) => ({ attempt: result.label, status: result.status, leaked: result.read?.includes(seeded.id) ?? false })),
    ).toEqual(results.map((result) => ({ attempt: result.label, status: 403, leaked: false })));
    // Refused by the Host check: the requests named the rebound host, and came from its own origin.
    const marked = log.answers.slice(first).filter((answer) => answer.attempt !== null);
    expect(marked.map((answer) => `${answer.status} ${answer.method} ${answer.path} Host: ${answer.headers.host}`)).toEqual([
      `403 POST /conversations/create Host: ${REBOUND_HOST}:${server.port}`,
      `403 GET /conversations Host: ${REBOUND_HOST}:${server.port}`,
    ]);
    expect(await conversations(service)).toEqual(before);
  }, 120_000);

  it('lets the same page work once its origin is allowed: a preflighted JSON POST and a read', async () => {
    const { service, server, log } = allowing!;
    const page = await newPage();

    const query = new URLSearchParams({ mode: 'use', service: server.url });
    await page.goto(`${pageServer!.origin}/attack?${query}`);
    const [create, list] = await resultsOf(page);

    expect({ attempt: create?.label, status: create?.status, note: create?.note }).toEqual({
      attempt: 'fetch cors POST create, application/json',
      status: 200,
      note: '',
    });
    const created = JSON.parse(create!.read!) as Conversation;
    expect(created.name).toBe('created by the page');
    expect(list?.status).toBe(200);
    const listed = JSON.parse(list!.read!) as { iterable: Conversation[] };
    expect(listed.iterable.map((conversation) => conversation.id)).toContain(created.id);
    // The browser asked first (a JSON POST is not a "simple" request), and the service agreed.
    expect(log.answers.map((answer) => `${answer.status} ${answer.method} ${answer.path}`)).toEqual([
      '204 OPTIONS /conversations/create',
      '200 POST /conversations/create',
      '200 GET /conversations',
    ]);
    // The service really has it: the POST was carried out, not only answered.
    expect((await conversations(service)).find((conversation) => conversation.id === created.id)?.name).toBe('created by the page');
  }, 120_000);
});
