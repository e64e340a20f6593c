/** A one-line progress bar on a TTY stderr; silent otherwise. */
import type { Io } from "./output.js";

export function progressBar(io: Io, label: string): { update: (done: number, total: number) => void; done: () => void } {
  if (!io.tty) return { update: () => {}, done: () => {} };
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 80 && done < total) return;
      last = now;
      shown = true;
      const width = 30;
      const filled = total ? Math.round((done / total) * width) : width;
      process.stderr.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
    },
    done() {
      if (shown) process.stderr.write("\r\x1b[2K");
    },
  };
}
