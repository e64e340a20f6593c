/** Drop known third-party console noise (TF.js banners, re-registration warnings) while loading a model. */

type ConsoleMethod = "log" | "info" | "warn" | "debug";
const METHODS: ConsoleMethod[] = ["log", "info", "warn", "debug"];

/** TF.js messages that mean nothing to a cairn user. Only these are dropped; everything else passes. */
export const TFJS_NOISE: RegExp[] = [
  /looks like you are running TensorFlow\.js in Node\.js/i,
  /Platform \w+ has already been set/,
  /The kernel '[^']*' for backend '[^']*' is already registered/,
  /backend was already registered/,
  /TensorFlow\.js deprecation warnings/i,
];

let depth = 0;
let saved: Partial<Record<ConsoleMethod, (...args: unknown[]) => void>> = {};
let active: RegExp[][] = [];

/** Run `fn` with console messages matching `patterns` dropped; the console is restored after. */
export async function withoutConsoleNoise<T>(patterns: RegExp[], fn: () => Promise<T>): Promise<T> {
  if (depth++ === 0) {
    saved = {};
    for (const method of METHODS) {
      const original = console[method];
      saved[method] = original;
      console[method] = (...args: unknown[]) => {
        const text = args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
        if (active.some((set) => set.some((p) => p.test(text)))) return;
        original.apply(console, args);
      };
    }
  }
  active.push(patterns);
  try {
    return await fn();
  } finally {
    active.splice(active.indexOf(patterns), 1);
    if (--depth === 0) {
      for (const method of METHODS) if (saved[method]) console[method] = saved[method];
      saved = {};
    }
  }
}
