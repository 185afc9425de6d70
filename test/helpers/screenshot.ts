import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';

/**
 * Takes a screenshot of `page` (a page the browser cannot draw still fails the test) and keeps it
 * as `name` in the folder `$TEST_SCREENSHOTS` names, if set (`TEST_SCREENSHOTS=screenshots npx
 * vitest run test/security/browser.test.ts`), saying where. Otherwise it keeps none: a file in the
 * temp folder on every run is a leftover nobody removes.
 */
export async function screenshot(page: Page, name: string, options: { fullPage: boolean; timeout?: number }): Promise<void> {
  const image = await page.screenshot(options);
  const folder = process.env.TEST_SCREENSHOTS;
  if (!folder) return;
  await mkdir(folder, { recursive: true });
  const file = path.resolve(folder, name);
  await writeFile(file, image);
  console.info(`screenshot: ${file}`);
}
