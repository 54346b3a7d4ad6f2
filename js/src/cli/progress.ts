/**
 * Progress of a byte stream (export, import) on stderr: a cli-progress bar when stderr is a terminal, else a
 * plain line every PLAIN_EVERY bytes; either way a summary line at the end. Never on stdout, which may carry the
 * export itself.
 */

import cliProgress from 'cli-progress';

/** Plain progress lines come every this many bytes. */
const PLAIN_EVERY = 16 << 20;

/** Bytes as people read them. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1 << 20)).toFixed(1)} MiB`;
}

export class ByteProgress {
  readonly #label: string;
  readonly #bar: cliProgress.SingleBar | undefined;
  readonly #started = Date.now();
  #total: number;
  #done = 0;
  #nextLine = PLAIN_EVERY;

  /** `total`: the expected size (a file's length, an estimate), or 0 when unknown. */
  constructor(label: string, total: number) {
    this.#label = label;
    this.#total = total;
    if (process.stderr.isTTY) {
      this.#bar = new cliProgress.SingleBar(
        {
          format: `${label} |{bar}| {percentage}% {done} of {size} {eta_formatted}`,
          stream: process.stderr,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      this.#bar.start(Math.max(total, 1), 0, this.#payload());
    }
  }

  #payload() {
    return { done: bytes(this.#done), size: this.#total > 0 ? bytes(this.#total) : '?' };
  }

  /** `n` more bytes went through. */
  add(n: number): void {
    this.#done += n;
    if (this.#bar) {
      if (this.#done > this.#total) {
        this.#total = this.#done; // the estimate was short
        this.#bar.setTotal(this.#total);
      }
      this.#bar.update(this.#done, this.#payload());
    } else if (this.#done >= this.#nextLine) {
      process.stderr.write(
        `${this.#label}: ${bytes(this.#done)}${this.#total > 0 ? ` of ${bytes(this.#total)}` : ''}\n`,
      );
      while (this.#nextLine <= this.#done) this.#nextLine += PLAIN_EVERY;
    }
  }

  /** Ends the bar (if any); prints `summary` after the bytes and the time taken. */
  finish(summary: string): void {
    if (this.#bar) {
      this.#total = this.#done;
      this.#bar.setTotal(Math.max(this.#done, 1));
      this.#bar.update(this.#done, this.#payload());
      this.#bar.stop();
    }
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    process.stderr.write(`${this.#label}: ${bytes(this.#done)} in ${seconds} s${summary ? `, ${summary}` : ''}\n`);
  }

  /** Ends the bar (if any) without a summary: the command failed. */
  abort(): void {
    this.#bar?.stop();
  }
}
