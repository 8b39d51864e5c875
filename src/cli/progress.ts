// Progress for long commands: a bar with rate and ETA on a TTY, nothing otherwise (a summary line follows).
import { SingleBar } from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

const SILENT: Progress = { update() {}, stop() {} };

/** A progress bar on stderr when it is a TTY; `unit` names what is counted (lines, MB, records). */
export function progressBar(label: string, unit: string): Progress {
  if (!process.stderr.isTTY) return SILENT;
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
    hideCursor: true,
    etaBuffer: 50,
  });
  let started = false;
  const begin = Date.now();
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0, { rate: 0 });
        started = true;
      }
      const seconds = (Date.now() - begin) / 1000;
      bar.setTotal(total);
      bar.update(done, { rate: seconds > 0 ? Math.round(done / seconds) : 0 });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
