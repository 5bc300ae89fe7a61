/**
 * `run` at once on the first call, then at most once per `ms` while calls keep coming: the calls
 * made inside a window become one run at its end (leading and trailing). What a person did shows
 * without a fixed delay, and a burst of changes (a checkout, a formatter) is still one refresh
 * per window, not one per file.
 */
export function coalesce(run: () => void, ms: number): { call(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let again = false;
  const endWindow = () => {
    timer = undefined;
    if (!again) return;
    again = false;
    run();
    timer = setTimeout(endWindow, ms);
  };
  return {
    call() {
      if (timer !== undefined) {
        again = true;
        return;
      }
      run();
      timer = setTimeout(endWindow, ms);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      again = false;
    },
  };
}
