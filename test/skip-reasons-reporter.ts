/**
 * Says, at the end of the run, which tests did not run and why (vitest.config.ts adds it after the
 * default reporter, which only counts them). A test is skipped only through `needs()`
 * (test/helpers/requirements.ts), which writes the reason; a `ctx.skip(note)` inside a test gives
 * its note. A skipped test without either is named as a defect, unless the run was filtered (a
 * `-t` pattern leaves tests out the same way).
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class SkipReasonsReporter implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    /** `file: reason` → how many tests it skipped (a file's tests, in each project it runs in). */
    const reasons = new Map<string, number>();
    const unexplained: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const reason = result.note ?? test.meta().skipReason;
        if (reason === undefined) {
          unexplained.push(`${module.relativeModuleId} > ${test.fullName}`);
          continue;
        }
        const key = `${module.relativeModuleId}: ${reason}`;
        reasons.set(key, (reasons.get(key) ?? 0) + 1);
      }
    }
    const lines: string[] = [];
    for (const [key, count] of reasons) lines.push(`  ${key} (${count} test${count === 1 ? '' : 's'})`);
    if (unexplained.length > 0 && this.filtered) {
      lines.push(`  ${unexplained.length} test(s) left out by the -t filter`);
    } else if (unexplained.length > 0) {
      lines.push('  Skipped without a written reason (a defect: skip through needs(), test/helpers/requirements.ts):');
      for (const name of unexplained) lines.push(`    ${name}`);
    }
    if (lines.length === 0) return;
    console.log(`\nSkipped tests, and why:\n${lines.join('\n')}\n`);
  }
}
