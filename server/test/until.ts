// Waiting in tests: poll a condition until it holds, or fail naming what was awaited. One helper
// for every test that waits on something another process or socket does, instead of a sleep.

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
