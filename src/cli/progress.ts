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

export interface RowProgress {
  /** `bytesRead` of the input so far (the bar and ETA), rows done and how many of them matched. */
  update(bytesRead: number, rows: number, matched: number): void;
  stop(): void;
}

const SILENT_ROWS: RowProgress = { update() {}, stop() {} };

/**
 * A bar for a list being worked through, on stderr when it is a TTY: rows, the share matched, rows per second
 * and, when the input's size is known, the ETA by bytes read.
 */
export function rowProgress(label: string, totalBytes: number | undefined): RowProgress {
  if (!process.stderr.isTTY) return SILENT_ROWS;
  const counts = '{rows} rows | {matched}% matched | {rate} rows/s';
  const bar = new SingleBar({
    stream: process.stderr,
    format:
      totalBytes === undefined
        ? `${label} ${counts}`
        : `${label} [{bar}] {percentage}% | ${counts} | ETA {eta_formatted}`,
    hideCursor: true,
    etaBuffer: 50,
  });
  const begin = Date.now();
  bar.start(Math.max(1, totalBytes ?? 1), 0, { rows: 0, matched: '0.0', rate: 0 });
  return {
    update(bytesRead, rows, matched) {
      const seconds = (Date.now() - begin) / 1000;
      bar.update(totalBytes === undefined ? 0 : Math.min(bytesRead, totalBytes), {
        rows: rows.toLocaleString('en'),
        matched: rows > 0 ? ((100 * matched) / rows).toFixed(1) : '0.0',
        rate: seconds > 0 ? Math.round(rows / seconds).toLocaleString('en') : 0,
      });
    },
    stop() {
      bar.stop();
    },
  };
}
