// Progress lines on stderr, stamped with the time since the benchmark started; stdout keeps the results.
const started = performance.now();

export function say(line: string): void {
  const seconds = Math.round((performance.now() - started) / 1000);
  const stamp = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  process.stderr.write(`[${stamp}] ${line}\n`);
}
