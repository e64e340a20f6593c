/**
 * When lint passes run: one at a time, after a pause in typing (each request pushes the pass
 * back by its delay), but never later than `maxWaitMs` after the first request still waiting, so
 * that someone typing without pause still sees their problems.
 */
export type PassOptions = {
  /** Quiet period after an edit. Default 200 ms. */
  debounceMs?: number;
  /** Longest a request waits while edits keep coming. Default 1000 ms. */
  maxWaitMs?: number;
};

export class PassScheduler {
  readonly #run: () => Promise<void>;
  readonly #onError: (error: unknown) => void;
  readonly debounceMs: number;
  readonly #maxWaitMs: number;
  #timer: NodeJS.Timeout | undefined;
  #due = Number.POSITIVE_INFINITY;
  #first = Number.POSITIVE_INFINITY;
  #running = false;
  #again = false;

  constructor(run: () => Promise<void>, onError: (error: unknown) => void, options: PassOptions = {}) {
    this.#run = run;
    this.#onError = onError;
    this.debounceMs = options.debounceMs ?? 200;
    this.#maxWaitMs = options.maxWaitMs ?? 1000;
  }

  /** Ask for a pass in `delayMs` (default: the debounce); 0 for at once (a buffer just opened). */
  request(delayMs = this.debounceMs): void {
    const now = performance.now();
    if (this.#first === Number.POSITIVE_INFINITY) this.#first = now;
    this.#due = Math.min(this.#first + this.#maxWaitMs, now + delayMs);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, this.#due - now));
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#due = Number.POSITIVE_INFINITY;
  }

  #fire(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#due = this.#first = Number.POSITIVE_INFINITY;
    this.#running = true;
    this.#run()
      .catch(this.#onError)
      .finally(() => {
        this.#running = false;
        if (this.#again) {
          this.#again = false;
          this.#fire();
        }
      });
  }
}
