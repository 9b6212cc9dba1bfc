/**
 * Polls `read` until `check` passes: a running server's schedules (list sync, queue workers) act
 * in their own time, more slowly on a loaded CI machine. Fails after `timeoutMs` (default 40 s)
 * with the last value read.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 40_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
