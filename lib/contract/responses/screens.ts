import * as v from 'valibot';
import { DISPOSITIONS } from '../../screening/request.ts';
import {
  CarriedFromSchema,
  HISTORY_VALUES,
  SCREEN_ORIGINS,
  HistoryEntrySchema as StoredHistoryEntrySchema,
} from '../../screening/screen-record.ts';
import {
  ActorSchema,
  checkTypes,
  clientId,
  cursor,
  riskLevel,
  SubjectSchema,
  screenId,
  timestamp,
} from './fields.ts';
import { DecidedFalsePositiveMarkSchema } from './policy.ts';

/** Responses of the screen routes: a screen, its matches, receipt, replay, history and pages. */

const fieldExplanation = v.strictObject({
  status: v.picklist(['matched', 'near', 'mismatched', 'unknown']),
  detail: v.string(),
});

/** `total` and `truncated` of each check's result: whether its matches were cut to the best 10. */
const matchCount = {
  total: v.pipe(
    v.nullable(v.number()),
    v.description(
      'How many listed people matched this check before the matches were cut to the best 10; null on a screen stored before counts were recorded that shows 10',
    ),
  ),
  truncated: v.pipe(
    v.nullable(v.boolean()),
    v.description(
      'True when `total` is more than the matches shown; null when a screen stored before counts cannot tell',
    ),
  ),
};

export const MatchSchema = v.strictObject({
  list_id: v.string(),
  list_name: v.string(),
  entity_id: v.string(),
  primary_name: v.string(),
  matched_name: v.string(),
  matched_input: v.picklist(['name', 'alias']),
  score: v.number(),
  name_score: v.number(),
  risk_level: riskLevel,
  dobs: v.array(v.string()),
  nationalities: v.array(v.string()),
  programmes: v.array(v.string()),
  explanation: v.strictObject({
    name: fieldExplanation,
    dob: fieldExplanation,
    nationality: fieldExplanation,
    location: fieldExplanation,
  }),
  url: v.optional(v.string()),
  listings: v.array(
    v.strictObject({
      list_id: v.string(),
      list_name: v.string(),
      entity_id: v.string(),
      primary_name: v.string(),
      programmes: v.array(v.string()),
      reference: v.optional(v.string()),
      listed_on: v.optional(v.string()),
      url: v.optional(v.string()),
      linked_by: v.string(),
    }),
  ),
  pep: v.optional(
    v.strictObject({
      tier: v.number(),
      tier_label: v.string(),
      category: v.string(),
      position: v.string(),
      current: v.boolean(),
    }),
  ),
  decided_false_positive: v.optional(DecidedFalsePositiveMarkSchema),
});

export const SanctionsResultSchema = v.strictObject({
  risk_level: riskLevel,
  is_sanctioned: v.boolean(),
  matches: v.array(MatchSchema),
  narrative: v.string(),
  ...matchCount,
});

export const PepResultSchema = v.strictObject({
  risk_level: riskLevel,
  is_pep: v.boolean(),
  tier: v.nullable(v.number()),
  tier_label: v.nullable(v.string()),
  category: v.nullable(v.string()),
  narrative: v.string(),
  matches: v.array(MatchSchema),
  ...matchCount,
});

export const CriminalResultSchema = v.strictObject({
  risk_level: riskLevel,
  interpol_hits: v.array(MatchSchema),
  fbi_hits: v.array(MatchSchema),
  narrative: v.string(),
  ...matchCount,
});

const historyEntryEntries = {
  ...StoredHistoryEntrySchema.entries,
  author: ActorSchema,
  carried_by: v.pipe(
    v.optional(ActorSchema),
    v.description(
      'On a decision the system carried forward to a client’s newer screen: the system, its carrier. `author` stays the person who made the decision',
    ),
  ),
  carried_from: v.pipe(
    v.optional(v.strictObject(CarriedFromSchema.entries)),
    v.description(
      'With `carried_by`: the screen where the person made the decision, its `decision_version` there and when it was made (`decided_at`)',
    ),
  ),
};
const decisionEntries = { ...historyEntryEntries, disposition: v.picklist(DISPOSITIONS) };

/** One decision of a screen's history, as stored. */
export const DecisionSchema = v.strictObject(decisionEntries);

export const DispositionSchema = v.strictObject({
  ...decisionEntries,
  awaiting_approval: v.boolean(),
  decision_version: v.nullable(v.number()),
  approved_decision: v.optional(DecisionSchema),
});

const matchRef = v.strictObject({
  list_id: v.string(),
  entity_id: v.string(),
  primary_name: v.string(),
  risk_level: riskLevel,
});

export const AlertSchema = v.strictObject({
  previous_screen_id: v.nullable(screenId),
  baseline_screen_id: v.nullable(screenId),
  since: v.nullable(timestamp),
  raised_by_screen_id: v.nullable(screenId),
  risk_before: v.nullable(riskLevel),
  risk_after: riskLevel,
  matches_added: v.array(matchRef),
  matches_removed: v.array(matchRef),
  matches_changed: v.array(matchRef),
  reasons: v.array(v.string()),
});

const screenSummaryEntries = {
  screen_id: screenId,
  risk_level: riskLevel,
  subject: SubjectSchema,
  screened_at: timestamp,
  types: checkTypes,
  created_by: ActorSchema,
  disposition: v.nullable(DispositionSchema),
  alert_since: v.nullable(timestamp),
  origin: v.picklist(SCREEN_ORIGINS),
  client_id: v.nullable(clientId),
};

export const ScreenSummarySchema = v.strictObject({
  ...screenSummaryEntries,
  best_match: v.pipe(
    v.nullable(
      v.strictObject({
        name: v.pipe(v.string(), v.description('The listed person’s primary name')),
        list_id: v.string(),
        list_name: v.string(),
        score: v.pipe(
          v.number(),
          v.description('0..1: name similarity adjusted by date of birth and nationality'),
        ),
        risk_level: riskLevel,
      }),
    ),
    v.description(
      'The screen’s strongest match across its checks (the highest risk, then the highest score), so a queue row can show it without reading the match data; null when nothing matched, and on screens stored before it was recorded',
    ),
  ),
});

const described = <TSchema extends v.GenericSchema>(schema: TSchema, text: string) =>
  v.pipe(schema, v.description(text));
const numbersOf = <const K extends string>(names: readonly K[]) =>
  v.strictObject(
    Object.fromEntries(names.map((name) => [name, v.number()])) as Record<K, v.NumberSchema<undefined>>,
  );

/** What a screen was matched against and with: stored when the screen is made (lib/screening/receipt.ts). */
export const ReceiptSchema = v.strictObject({
  snapshot: described(
    v.strictObject({
      version: described(
        v.string(),
        'The snapshot store’s version (a local file name, an S3 object version) of the watchlist snapshot matched against, or `bundled-<hash>` for the snapshot shipped with the code. `POST /screens/{screen_id}/replay` reads this version back.',
      ),
      built_at: described(timestamp, 'When the snapshot was compiled.'),
      lists: described(
        v.array(
          v.strictObject({
            id: v.string(),
            source_date: described(
              v.nullable(v.string()),
              'The publisher’s date of the list’s data; null when the publisher states none (never the date it was fetched).',
            ),
            synced_at: described(timestamp, 'When the list’s data was parsed into a snapshot.'),
            content_hash: described(
              v.nullable(v.string()),
              'SHA-256 of the list’s files (the publisher’s files a sync downloaded, or the files under data/ a bundled list was built from; recipe in docs/lists-and-matching.md); null only on screens made before bundled lists were hashed.',
            ),
            individual_count: described(v.number(), 'Individuals screened on the list.'),
          }),
        ),
        'Every list of the snapshot, as it stood when the screen was made.',
      ),
    }),
    'The watchlist snapshot the screen was matched against.',
  ),
  matcher: described(
    v.strictObject({
      version: described(
        v.string(),
        '`matcher-<hash>`: a hash of the matching code’s sources (lib/matcher, the list modules it reads, the romanisation packages’ versions).',
      ),
      config: described(
        v.strictObject({
          check_types: described(checkTypes, 'The check types run.'),
          max_matches_per_check: described(v.number(), 'Matches returned per check type at most.'),
          name_bands: described(
            numbersOf(['strong', 'partial', 'reporting_floor']),
            'Name similarity bands; a listed person below `reporting_floor` is not reported.',
          ),
          candidates: described(
            numbersOf(['shortlist_per_check', 'min_evidence_share', 'opening_weight']),
            'Candidate selection: which listed names are scored in full.',
          ),
          token_weights: described(
            numbersOf(['particle', 'initial', 'patronymic', 'min_token', 'common_given', 'unseen']),
            'Rarity weights of name parts.',
          ),
          corroboration_score_adjust: described(
            numbersOf(['matched', 'near', 'unknown', 'mismatched']),
            'What a corroborating field adds to a match’s score, by its status (orders matches, never decides the level).',
          ),
        }),
        'The effective matching configuration.',
      ),
    }),
    'The matching code and configuration the screen was made with.',
  ),
  policy: v.optional(
    described(
      v.strictObject({ version: v.number() }),
      'The tenant’s screening policy version the screen was made under (GET /settings/policy; docs/policies.md); a replay applies it again. Absent on screens made before policies: version 0, the service’s own.',
    ),
  ),
});

export const ScreenSchema = v.strictObject({
  ...screenSummaryEntries,
  sanctions_result: v.nullable(SanctionsResultSchema),
  pep_result: v.nullable(PepResultSchema),
  criminal_result: v.nullable(CriminalResultSchema),
  alert: v.nullable(AlertSchema),
  superseded_by: v.nullable(screenId),
  receipt: described(
    v.nullable(ReceiptSchema),
    'The snapshot and matcher the screen was made with; null on screens stored before receipts were recorded.',
  ),
  lists_stale: described(
    v.optional(
      v.array(
        v.strictObject({
          id: v.string(),
          source_date: v.nullable(v.string()),
          synced_at: timestamp,
          reasons: v.array(v.string()),
        }),
      ),
    ),
    'The lists the screen used (those of its check types) that were stale when it was made, by the rule of GET /dbstatus (`staleness_rule`) applied at `screened_at` to the lists its receipt records; empty when none was. Absent on screens stored before receipts.',
  ),
});

const replayDifferences = v.strictObject({
  risk_level: described(
    v.nullable(v.strictObject({ stored: riskLevel, now: riskLevel })),
    'The screen’s risk level as stored and as re-run; null when they are the same.',
  ),
  matches_added: described(
    v.array(matchRef),
    'Listed entries matched by the re-run and not in the stored screen.',
  ),
  matches_removed: described(
    v.array(matchRef),
    'Listed entries in the stored screen the re-run does not match.',
  ),
  matches_changed: described(
    v.array(matchRef),
    'Matches on entries whose listing says something else in the re-run’s lists (names, dates of birth, nationalities, programmes, office).',
  ),
  matches_rescored: described(
    v.array(matchRef),
    'Matches on the same listing with another score, risk level or explanation.',
  ),
  other_fields: described(
    v.array(v.string()),
    'Paths of any other result field that differs (narratives, flags), at most 20.',
  ),
});

const replayOutcomeEntries = {
  snapshot_version: described(v.string(), 'The snapshot the subject was re-run on.'),
  matcher_version: described(v.string(), 'The running matcher’s version.'),
  risk_level: riskLevel,
  identical: described(
    v.boolean(),
    'The re-run’s result equals the stored result in every field (risk level, every match with its score and explanation, narratives).',
  ),
  differences: replayDifferences,
};

export const ScreenReplaySchema = v.strictObject({
  screen_id: screenId,
  receipt: ReceiptSchema,
  replayed: described(
    v.strictObject({
      ...replayOutcomeEntries,
      same_matcher: described(
        v.boolean(),
        'The running matcher has the receipt’s version and configuration. When false, a difference may come from the code rather than the lists.',
      ),
      same_lists: described(
        v.boolean(),
        'The re-run’s lists are the receipt’s: same ids, source dates, sync times, content hashes and counts.',
      ),
    }),
    'The stored subject and check types re-run on the snapshot the receipt names, with the running matcher.',
  ),
  today: described(
    v.strictObject(replayOutcomeEntries),
    'The stored subject and check types re-run on the lists in force now.',
  ),
});

export const MoreMatchesPageSchema = v.strictObject({
  screen_id: screenId,
  check: v.picklist(['sanctions', 'pep', 'criminal']),
  total: described(v.number(), 'The check’s matches in all: those the screen stores and the rest.'),
  stored: described(v.number(), 'How many of them the screen stores (its strongest, at most 10).'),
  matches: described(
    v.array(MatchSchema),
    'This page of the matches the screen does not store, strongest first (level, then score).',
  ),
  next_cursor: cursor,
  snapshot_version: described(
    v.nullable(v.string()),
    'The watchlist snapshot the rest was computed on: the one the screen’s receipt names. Null when the check was not cut (nothing re-run).',
  ),
  policy_version: described(
    v.nullable(v.number()),
    'The tenant policy version the rest was computed under: the screen’s. Null when nothing was re-run.',
  ),
  same_matcher: described(
    v.boolean(),
    'The running matcher has the receipt’s version and configuration. When false, the rest comes from a newer matcher than the stored matches.',
  ),
});

export const ScreenResultSchema = v.strictObject({ ...ScreenSchema.entries, skipped: v.boolean() });

export const ScreenPageSchema = v.strictObject({
  screens: v.array(ScreenSummarySchema),
  next_cursor: cursor,
});

const entryLink = v.strictObject({
  version: v.number(),
  disposition: v.picklist(HISTORY_VALUES),
  author: ActorSchema,
  at: timestamp,
});

export const ScreenHistorySchema = v.strictObject({
  screen_id: screenId,
  disposition: v.nullable(DispositionSchema),
  history: v.array(
    v.strictObject({
      ...historyEntryEntries,
      version: v.number(),
      approves: v.optional(entryLink),
      superseded_by: v.optional(entryLink),
      approved_by: v.optional(ActorSchema),
      approved_at: v.optional(timestamp),
      withdraws_approval: v.optional(entryLink),
    }),
  ),
});

export const ScreenDeletedSchema = v.strictObject({ screen_id: screenId, deleted: v.literal(true) });
