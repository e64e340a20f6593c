/** Memory figures: current and peak resident set size of this process. */

/** Current RSS in MB. */
export function rssMb(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

/** Peak RSS of this process so far in MB (getrusage maxrss). */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Sample RSS every `everyMs` while `fn` runs; returns the growth of the highest sample over the RSS before. */
export async function rssDuring<T>(fn: () => Promise<T>, everyMs = 50): Promise<{ value: T; beforeMb: number; peakMb: number; growthMb: number }> {
  const beforeMb = rssMb();
  let peakMb = beforeMb;
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb());
  }, everyMs);
  try {
    const value = await fn();
    peakMb = Math.max(peakMb, rssMb());
    return { value, beforeMb, peakMb, growthMb: peakMb - beforeMb };
  } finally {
    clearInterval(timer);
  }
}
