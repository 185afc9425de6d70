/**
 * The docs page in a real browser: headless Debian Chromium opens `/docs` on a running service,
 * the page loads its own assets (no network beyond the service), and the rendered page lists the
 * operations' sections, and the operations of those it opens. A screenshot is kept where $TEST_SCREENSHOTS says (test/helpers/screenshot.ts).
 * Skipped, saying why, where /usr/bin/chromium is missing.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../adapters/hono/index.js';
import { type RunningHttpServer, startHttpServer } from '../../adapters/hono/serve.js';
import { createService, type Service } from '../../src/index.js';
import { CHROMIUM, needs, unmet } from '../helpers/requirements.js';
import { screenshot } from '../helpers/screenshot.js';
import { launchChromium, recordAnswers } from '../security/browser-helpers.js';

/** Bound of each wait on the browser. */
const WAIT_MS = 20_000;

describe('the docs page in Chromium', needs(unmet(CHROMIUM)), () => {
  let service: Service;
  let server: RunningHttpServer;
  let browser: Browser;

  beforeAll(async () => {
    service = await createService();
    server = await startHttpServer(service, { port: 0, host: '127.0.0.1', keepAliveTimeoutMs: 500, shutdownGraceMs: 1000 });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await service?.close();
  });

  it('opens /docs offline and lists the operations', async () => {
    const log = recordAnswers(server.port);
    const context = await browser.newContext({ viewport: { width: 1280, height: 2400 } });
    const page = await context.newPage();
    // Anything but the service is refused: the page must work offline.
    const elsewhere: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url)) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      const answer = await page.goto(`${server.url}/docs`, { timeout: WAIT_MS, waitUntil: 'load' });
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['x-frame-options']).toBe('DENY');
      // Swagger UI lists one section per tag once it has fetched and parsed openapi.json, each
      // closed (182 operations rendered at once stopped after the first 32); a section opened
      // shows its operations.
      const document = createOpenApiDocument() as { paths: Record<string, Record<string, { tags: string[] }>> };
      const byTag = new Map<string, number>();
      for (const operations of Object.values(document.paths)) {
        for (const operation of Object.values(operations)) byTag.set(operation.tags[0]!, (byTag.get(operation.tags[0]!) ?? 0) + 1);
      }
      await page.waitForFunction(`document.querySelectorAll(".opblock-tag").length >= ${byTag.size}`, undefined, { timeout: WAIT_MS });
      expect(await page.locator('.opblock-tag').count()).toBe(byTag.size);
      const opened = ['Well known', 'Conversations', 'Conversation', 'Models', 'Model'];
      for (const tag of opened) await page.locator(`.opblock-tag[data-tag="${tag}"]`).click({ timeout: WAIT_MS });
      const shownOperations = opened.reduce((sum, tag) => sum + byTag.get(tag)!, 0);
      await page.waitForFunction(`document.querySelectorAll(".opblock").length >= ${shownOperations}`, undefined, { timeout: WAIT_MS });
      await screenshot(page, 'docs-page.png', { fullPage: false, timeout: WAIT_MS });

      // The rendered text, as a reader sees it, not the HTML source.
      const text = await page.innerText('body', { timeout: WAIT_MS });
      for (const shown of [
        'Conversation model service',
        '/conversations/create',
        '/conversation/{conversation}',
        '/model/{model}/load',
        '/.well-known/health',
        'conversationsCreateSpecificConversation',
        'conversationGetSpecificConversation',
        'modelsSnapshot',
        'modelSpecificModelLoad',
        ...byTag.keys(),
      ]) {
        expect(text).toContain(shown);
      }
      expect(await page.locator('.opblock').count()).toBe(shownOperations);
      // "Try it out" is off.
      expect(await page.locator('button.try-out__btn').count()).toBe(0);

      // The page loaded its assets and the document from the service, which served them all.
      const served = log.answers.map((a) => `${a.status} ${a.method} ${a.path}`);
      expect(served).toEqual(
        expect.arrayContaining([
          '200 GET /docs',
          '200 GET /docs/swagger-ui.css',
          '200 GET /docs/swagger-ui-bundle.js',
          '200 GET /docs/init.js',
          '200 GET /openapi.json',
        ]),
      );
      expect(log.answers.filter((a) => a.status >= 400)).toEqual([]);
      expect(log.answers.find((a) => a.path === '/docs/swagger-ui-bundle.js')?.headers['sec-fetch-site']).toBe('same-origin');
      expect(elsewhere).toEqual([]);
      expect(consoleErrors).toEqual([]);
    } finally {
      log.stop();
      await context.close();
    }
  }, 90_000);
});
