/**
 * Polls `read` until `check` passes: a running server's schedules (list sync, queue workers) act
 * in their own time, more slowly on a loaded CI machine. A read that throws (a connection reset
 * while the server is busy swapping lists) is tried again like a value that does not pass yet.
 * Fails after `timeoutMs` (default 40 s) with the last value read, or the last error.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 40_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: { value: T } | { error: unknown };
    try {
      const value = await read();
      if (check(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() > deadline) {
      if ('error' in last) throw new Error(`condition not met; last read failed: ${String(last.error)}`);
      throw new Error(`condition not met; last value: ${JSON.stringify(last.value)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
