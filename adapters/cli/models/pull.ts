import { type Command, fullName } from '../command.js';
import { CommandFailure } from '../failures.js';
import { type ProgressReport, plainReport, terminalReport } from '../progress-report.js';
import { formatBytes } from '../units.js';
import { type DownloadProgress, segment } from './answers.js';
import { MODEL_ARGUMENT, modelIdOf } from './model-id.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

/** How often the progress is asked: a smooth enough bar, a negligible load on the server. */
const POLL_MS = 300;
/**
 * How many answers in a row may say UNKNOWN before the command gives up: just after the download
 * is asked for it is already INITIALIZED, so a lasting UNKNOWN means the server lost it (restarted).
 */
const UNKNOWN_LIMIT = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A terminal gets the bar redrawn in place; a pipe or a file, plain lines. */
function reportFor(stdout: NodeJS.WriteStream): ProgressReport {
  const write = (text: string) => void stdout.write(text);
  return stdout.isTTY ? terminalReport(write, () => stdout.columns || 80) : plainReport(write);
}

/** `models pull <model>`: starts the server's download of the model's file and follows it to its end (as `ollama pull`). */
export const modelsPull: Command = {
  path: ['models', 'pull'],
  summary: "Downloads a model's file into the server's data folder, showing its progress.",
  details: `${SERVER_ENVIRONMENT}
The model's source is its \`unique\`, an http(s) URL. On a terminal a bar shows the percentage, the
bytes, the speed and the time left; into a pipe or a file, a plain line at each change of status
and each tenth of the way. Exits 0 once the file is complete, 1 when the download fails (the reason
on stderr). Ctrl-C stops watching; the server goes on downloading (pull again to watch it).`,
  positionals: [MODEL_ARGUMENT],
  flags: SERVER_FLAGS,
  async run(input) {
    const client = clientFor(input);
    const model = await modelIdOf(client, input.positionals[0]!);
    const route = `/model/${segment(model)}/download`;
    await client.call('POST', route);

    const report = reportFor(process.stdout);
    // Ctrl-C closes the bar's line rather than leaving the shell's prompt on it; the download is the server's, and goes on.
    const onInterrupt = () => {
      report.end();
      process.stderr.write(`stopped watching: the server goes on downloading (${fullName(modelsPull)} ${model} to watch again)\n`);
      process.exit(130);
    };
    process.once('SIGINT', onInterrupt);
    try {
      let total: number | undefined;
      for (let unknown = 0; ; await sleep(POLL_MS)) {
        const progress = await client.call<DownloadProgress>('GET', `${route}/progress`);
        report.update(progress, performance.now());
        total = progress.bytesTotal ?? total;
        if (progress.status === 'COMPLETED') {
          report.end();
          process.stdout.write(`pulled ${model}${total === undefined ? '' : ` (${formatBytes(total)})`}\n`);
          return;
        }
        if (progress.status === 'FAILED') throw new CommandFailure(`FAILED: ${progress.reason ?? 'the server gave no reason'}`);
        if (progress.status === 'CANCELED') throw new CommandFailure('CANCELED: the download was cancelled on the server');
        unknown = progress.status === 'UNKNOWN' ? unknown + 1 : 0;
        if (unknown >= UNKNOWN_LIMIT)
          throw new CommandFailure(`The server no longer knows of a download of ${model}: was it restarted? Pull again.`);
      }
    } finally {
      report.end();
      process.off('SIGINT', onInterrupt);
    }
  },
};
