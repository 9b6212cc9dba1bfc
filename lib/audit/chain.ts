import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The hash chain of a tenant's audit trail, with no store behind it: the trail (lib/audit/trail.ts),
 * the ops CLI's `verify-audit` and an export file's verifier all check entries with this module
 * alone, so an examiner's copy is checked by exactly the rule the service wrote it with.
 *
 * The rule: entry `seq` (1, 2, 3, ... with no gaps) carries `prev_hash`, the `hash` of entry
 * `seq - 1` (64 zeros for entry 1), and its own `hash` = SHA-256 hex of
 * `prev_hash + "\n" + canonicalJson(the entry without its hash)`. Editing an entry changes its hash;
 * removing one leaves a gap in `seq`; moving or inserting one breaks the next entry's `prev_hash`.
 * Whoever rewrites every hash from the edit onwards to the head also changes the head hash, which
 * is why the head hash and count are published (each export ends with them) and kept by the examiner.
 */

/** `prev_hash` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields the chain itself reads; an entry holds others (all of them hashed). */
export interface ChainedEntry {
  seq: number;
  prev_hash: string;
  hash: string;
  [field: string]: unknown;
}

/**
 * The entry's canonical JSON, RFC 8785 (JSON Canonicalization Scheme): object keys sorted by
 * UTF-16 code unit, no whitespace, numbers and strings as ECMAScript serialises them; fields whose
 * value is `undefined` left out, as `JSON.stringify` does. Written by the `canonicalize` package
 * (the scheme's reference implementation), so an examiner recomputes every hash with any JCS
 * tool: docs/operations.md gives the recipe in Python and JavaScript.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'function' || typeof value === 'symbol' || value === undefined)
    throw new TypeError(`a ${typeof value} has no JSON form`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('not a finite number');
  return canonicalize(value) as string;
}

/** SHA-256 hex of a text (UTF-8). */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The hash an entry must carry: over its `prev_hash` and every field but `hash`. */
export function entryHash(entry: Omit<ChainedEntry, 'hash'> | ChainedEntry): string {
  const { hash: _ignored, ...content } = entry as ChainedEntry;
  return sha256Hex(`${content.prev_hash}\n${canonicalJson(content)}`);
}

/** Seals an entry: sets `prev_hash` (the previous entry's hash) and its own `hash`. */
export function sealEntry<T extends { seq: number }>(
  entry: T,
  prevHash: string,
): T & { prev_hash: string; hash: string } {
  const unsealed = { ...entry, prev_hash: prevHash };
  return { ...unsealed, hash: entryHash(unsealed) };
}

/**
 * What is wrong at the first broken link:
 * - `edited`: the entry's content no longer gives its hash (a field was changed);
 * - `missing`: no entry carries this seq (an entry was removed);
 * - `out-of-order`: the entry with this seq is elsewhere in the trail (entries were moved);
 * - `unexpected`: an entry repeats or goes back to an earlier seq (an entry was inserted or copied);
 * - `relinked`: the entry's prev_hash is not the previous entry's hash (it was moved, or an entry
 *   before it was replaced with its hash recomputed).
 */
export type ChainProblem =
  | 'edited'
  | 'missing'
  | 'out-of-order'
  | 'unexpected'
  | 'relinked'
  | 'malformed'
  // Against a published head (lib/audit/verify.ts): entries after the trail's end were removed,
  // or the entry the head names no longer has the hash it had (the chain was rewritten).
  | 'cut'
  | 'rewritten';

export interface BrokenLink {
  ok: false;
  /** The seq where the chain breaks: the edited entry, the missing one, or the one out of place. */
  seq: number;
  problem: ChainProblem;
  /** One sentence an examiner can act on. */
  detail: string;
  /** How many entries before the break verified. */
  verified: number;
}

export interface IntactChain {
  ok: true;
  count: number;
  /** The last entry's hash (GENESIS_HASH for an empty trail): compare with the published head. */
  head_hash: string;
  /** The last entry's seq (the start's seq - 1 for an empty trail). */
  head_seq: number;
}

export type ChainVerdict = IntactChain | BrokenLink;

/** Where a verified stretch starts: the seq of its first entry and the hash that entry must name. */
export interface ChainStart {
  seq: number;
  prev_hash: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Verifies entries one at a time, as they are read from the store or an export file, in bounded
 * memory. `push` each entry in the order it was stored (by seq), then `finish()`. After the first
 * break it only watches for the seq that was expected there, to tell a removed entry (never seen)
 * from a moved one (seen later).
 */
export class ChainVerifier {
  private expectedSeq: number;
  private prevHash: string;
  private count = 0;
  private broken: BrokenLink | undefined;

  constructor(start: ChainStart = { seq: 1, prev_hash: GENESIS_HASH }) {
    this.expectedSeq = start.seq;
    this.prevHash = start.prev_hash;
  }

  /** Checks the next entry; returns false once the chain is broken (further entries are only watched). */
  push(entry: unknown): boolean {
    if (this.broken) {
      if (
        this.broken.problem === 'missing' &&
        (entry as Partial<ChainedEntry> | null)?.seq === this.broken.seq
      ) {
        this.broken = {
          ...this.broken,
          problem: 'out-of-order',
          detail: `entry ${this.broken.seq} is out of order: it was found later in the trail, after entries that must follow it`,
        };
      }
      return false;
    }
    const expected = this.expectedSeq;
    const at = (problem: ChainProblem, detail: string, seq = expected): false => {
      this.broken = { ok: false, seq, problem, detail, verified: this.count };
      return false;
    };
    const candidate = entry as Partial<ChainedEntry> | null;
    if (
      typeof candidate !== 'object' ||
      candidate === null ||
      !Number.isSafeInteger(candidate.seq) ||
      typeof candidate.prev_hash !== 'string' ||
      typeof candidate.hash !== 'string' ||
      !HEX64.test(candidate.hash)
    ) {
      return at('malformed', `the entry expected as seq ${expected} has no valid seq, prev_hash and hash`);
    }
    const { seq } = candidate as ChainedEntry;
    if (seq > expected) {
      return at('missing', `entry ${expected} is missing: the trail goes from ${expected - 1} to ${seq}`);
    }
    if (seq < expected) {
      return at(
        'unexpected',
        `an entry numbered ${seq} stands where ${expected} belongs: an entry was inserted or copied`,
      );
    }
    if (entryHash(candidate as ChainedEntry) !== candidate.hash) {
      return at(
        'edited',
        `entry ${seq} was changed after it was written: its content does not give its hash`,
      );
    }
    if (candidate.prev_hash !== this.prevHash) {
      return at(
        'relinked',
        `entry ${seq} does not follow entry ${seq - 1}: its prev_hash is not that entry's hash (moved, or an earlier entry was rewritten)`,
      );
    }
    this.count += 1;
    this.expectedSeq = seq + 1;
    this.prevHash = candidate.hash;
    return true;
  }

  /** The verdict over every entry pushed. */
  finish(): ChainVerdict {
    if (this.broken) return this.broken;
    return { ok: true, count: this.count, head_hash: this.prevHash, head_seq: this.expectedSeq - 1 };
  }
}

/**
 * Verifies a whole trail (or a stretch of it from `start`), in stored order: intact with its count
 * and head hash, or the first broken link (which seq, and what is wrong there).
 */
export function verifyChain(entries: Iterable<unknown>, start?: ChainStart): ChainVerdict {
  const verifier = new ChainVerifier(start);
  for (const entry of entries) verifier.push(entry);
  return verifier.finish();
}
