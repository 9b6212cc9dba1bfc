/**
 * Identifiers two publishers share for the same listing, written into `ListedPerson.shared_ids`
 * so that listings of one person on several lists can be linked (lib/watchlists/linking.ts).
 *
 * - `un:<REF>`: the UN Security Council reference number ("QDi.043"), which the EU, the UK and
 *   Australia quote for the UN listings they implement. The EU writes it without leading zeros
 *   ("QDi.43"), so the number is normalised.
 * - `ofsi:<group id>`: OFSI's Group ID, which the FCDO list carries for designations that were
 *   on the retired OFSI list.
 * - `ofac:<entity number>`: OFAC's entity number, the same in the legacy CSV (`ent_num`) and the
 *   Enhanced XML (`entity/@id`), so an SDN person also on the non-SDN list is one person.
 */

/** `un:QDI.43` for "QDi.043", "QDi.43" or "qdi.43"; undefined when the text is no UN reference. */
export function unReferenceId(reference: string | undefined | null): string | undefined {
  const m = reference?.trim().match(/^([A-Za-z]{2,4})\.(\d{1,4})\b/);
  if (!m) return undefined;
  return `un:${m[1].toUpperCase()}.${Number(m[2])}`;
}

export function ofsiGroupId(groupId: string | undefined | null): string | undefined {
  const id = groupId?.trim();
  return id && /^\d+$/.test(id) ? `ofsi:${Number(id)}` : undefined;
}

export function ofacEntityId(entNum: string | number | undefined | null): string | undefined {
  const id = String(entNum ?? '').trim();
  return /^\d+$/.test(id) ? `ofac:${Number(id)}` : undefined;
}

/** Appends the defined ids not already present. */
export function addSharedIds(person: { shared_ids?: string[] }, ...ids: (string | undefined)[]): void {
  for (const id of ids) {
    if (!id) continue;
    person.shared_ids ??= [];
    if (!person.shared_ids.includes(id)) person.shared_ids.push(id);
  }
}
