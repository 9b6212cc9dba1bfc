/** JSON with every object's keys in sorted order: two values that differ only in key order compare equal. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, node) =>
    node && typeof node === 'object' && !Array.isArray(node)
      ? Object.fromEntries(
          Object.keys(node)
            .sort()
            .map((key) => [key, (node as Record<string, unknown>)[key]]),
        )
      : node,
  );
}
