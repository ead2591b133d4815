/**
 * Download progress on stderr: a bar with bytes, percentage, rate and ETA when the length is known,
 * a spinner with bytes and rate when it is not. Redrawn at most ten times a second; only on a
 * terminal. The one-line summary at the end is printed by the caller either way.
 */
import { now as clock } from '../clock.js';
/**
 * A size or a rate in decimal units, as HTTPie prints them (1 kB = 1000 bytes; 200,000 bytes is
 * `200 kB`, 1,500,000 is `1.50 MB`): the one formatter of every size sling shows (progress bar,
 * download summary, messages). Whole bytes below 1 kB (a rate of 59.5 B/s shows as 60 B).
 */
export function formatBytes(n: number): string {
  if (n < 999.5) return `${Math.round(n)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  do {
    v /= 1000;
    u++;
  } while (v >= 999.5 && u < units.length - 1);
  return `${v.toFixed(v < 9.995 ? 2 : v < 99.95 ? 1 : 0)} ${units[u]}`;
}

/** A count of bytes that must be exact (what a file keeps): `1500000 bytes (1.50 MB)`, `5 bytes`. */
export function exactBytes(n: number): string {
  return n === 1 ? '1 byte' : n < 1000 ? `${n} bytes` : `${n} bytes (${formatBytes(n)})`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--';
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m < 60 ? `${m}m${String(s).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Progress {
  private received = 0;
  private lastDraw = 0;
  private frame = 0;
  private readonly start = clock();
  private drawn = false;

  constructor(
    private readonly write: ((s: string) => void) | null,
    /** Bytes expected in this transfer (undefined: unknown). */
    private readonly total: number | undefined,
    /** Bytes already on disk before this transfer (a resumed download). */
    private readonly offset = 0,
    private columns = 80,
  ) {
    // A pseudo-terminal may report 0 columns.
    if (!(columns >= 20)) this.columns = 80;
  }

  update(bytes: number) {
    this.received += bytes;
    if (!this.write) return;
    const now = clock();
    if (now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.draw(now);
  }

  private rate(now: number) {
    const secs = (now - this.start) / 1000;
    return secs > 0 ? this.received / secs : 0;
  }

  private draw(now: number) {
    const rate = this.rate(now);
    const done = this.offset + this.received;
    let line: string;
    if (this.total !== undefined && this.total > 0) {
      const all = this.offset + this.total;
      const pct = Math.min(100, (done / all) * 100);
      const eta = rate > 0 ? (all - done) / rate : Infinity;
      const tail = ` ${pct.toFixed(0).padStart(3)}% ${formatBytes(done)} / ${formatBytes(all)}  ${formatBytes(rate)}/s  ETA ${formatDuration(eta)}`;
      const width = Math.max(10, Math.min(40, this.columns - tail.length - 3));
      const filled = Math.round((pct / 100) * width);
      line = `[${'='.repeat(Math.max(0, filled - 1))}${filled > 0 ? '>' : ''}${' '.repeat(width - filled)}]${tail}`;
    } else {
      line = `${SPINNER[this.frame++ % SPINNER.length]} ${formatBytes(done)}  ${formatBytes(rate)}/s`;
    }
    this.write!(`\r${line.slice(0, this.columns - 1)}\x1b[K`);
    this.drawn = true;
  }

  /** Clears the bar; returns the summary numbers. */
  finish(): { bytes: number; seconds: number; rate: number } {
    const now = clock();
    if (this.write && this.drawn) this.write('\r\x1b[K');
    return { bytes: this.received, seconds: (now - this.start) / 1000, rate: this.rate(now) };
  }
}
