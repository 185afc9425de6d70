/** The mean of `values`; 0 when there are none. */
export const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

/** The `q` quantile of `values` (nearest rank, 0 ≤ q ≤ 1); NaN when there are none. */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** p50 and p99 of latencies in milliseconds. */
export function latencySummary(latencies: number[]): { p50: number; p99: number } {
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/** What every quality benchmark reports of its outputs: empty titles and summaries, and p50/p95 ms. */
export function outputFigures(results: readonly { title: string; summary: string; ms: number }[]): {
  emptyTitles: number;
  emptySummaries: number;
  p50: number;
  p95: number;
} {
  const ms = results.map((r) => r.ms);
  return {
    emptyTitles: results.filter((r) => r.title.trim() === '').length,
    emptySummaries: results.filter((r) => r.summary.trim() === '').length,
    p50: percentile(ms, 0.5),
    p95: percentile(ms, 0.95),
  };
}
