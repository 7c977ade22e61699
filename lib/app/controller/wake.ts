/** A pause that a watch event can cut short: the controller's loops sleep on it between passes. */
export class Wake {
  #pending = false;
  #resolve: (() => void) | null = null;

  /** Ends the current pause, or the next one at once if none is under way. */
  wake(): void {
    this.#pending = true;
    this.#resolve?.();
  }

  /** Resolves after `ms`, on `wake()`, or when `signal` aborts; whichever comes first. */
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#pending || signal.aborted) {
      this.#pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#resolve = null;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.#resolve = done;
    });
    this.#pending = false;
  }
}
