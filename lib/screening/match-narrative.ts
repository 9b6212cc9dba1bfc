/**
 * What a check's narrative says when its matches were cut to the strongest (issue 39, "nothing
 * hidden"): the matcher writes "10 possible matches" of the ones it kept; a result that had more
 * (`truncated`, `total`) says "Showing the 10 strongest of 11 possible matches" instead, so the text
 * never reads as if the list were complete.
 */
export function narrativeOfCut(
  narrative: string,
  shown: number,
  total: number | null,
  truncated: boolean | null,
): string {
  if (!truncated || total === null || total <= shown) return narrative;
  const said = `${shown} possible matches`;
  const says = `Showing the ${shown} strongest of ${total} possible matches`;
  return narrative.includes(said) ? narrative.replace(said, says) : `${narrative} ${says}.`;
}
