/**
 * A progress bar on stderr: done/total, rate per second and ETA. On a terminal it redraws one line;
 * elsewhere (CI, a log file) it prints a line every few seconds.
 */
export interface ProgressBar {
  update(done: number, total: number, note?: string): void;
  finish(message?: string): void;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, "0")}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`;
}

export function createProgressBar(unit: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const tty = Boolean(stream.isTTY);
  const samples: { t: number; done: number }[] = [];
  let lastPrint = 0;
  let last = "";
  return {
    update(done, total, note = "") {
      const now = Date.now();
      samples.push({ t: now, done });
      while (samples.length > 2 && now - (samples[0] as { t: number }).t > 10_000) samples.shift();
      const first = samples[0] as { t: number; done: number };
      const rate = now > first.t ? ((done - first.done) * 1000) / (now - first.t) : 0;
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const width = 24;
      const filled = Math.round(ratio * width);
      const eta = rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
      last =
        `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(ratio * 100).toFixed(1).padStart(5)}% ` +
        `${fmt(done)}/${fmt(total)} ${unit}  ${fmt(rate)} ${unit}/s  ETA ${done >= total ? "0s" : duration(eta)}${note ? `  ${note}` : ""}`;
      if (tty) stream.write(`\r\x1b[2K${last}`);
      else if (now - lastPrint >= 2_000) {
        stream.write(`${last}\n`);
        lastPrint = now;
      }
    },
    finish(message) {
      if (tty) stream.write("\n");
      else if (last) stream.write(`${last}\n`);
      if (message) stream.write(`${message}\n`);
    },
  };
}
