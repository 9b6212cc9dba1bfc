import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single table: every item of every tenant, keyed so that the tenant comes first in every
 * partition key. Tenant scoping is structural: no tenant-facing access pattern can reach another
 * tenant's items without naming that tenant's partition. The one exception is an operator path
 * that never answers a tenant: the list of tenants (ops CLI, and the auto-rescreen scheduler,
 * which then reads each tenant's due shards). The other partitions without a tenant first are read
 * by operator paths alone, and hold ids, never personal data: open batches (resumed after a local
 * restart) and client name keys (the list sync's delta rescreens, which then read each hit from
 * its tenant's partition). The watchlists' sync status rows (list-sync) belong to no tenant: they describe the lists everyone is screened against.
 *
 * Every item carries `entity` (its kind, below); readers parse items with the entity's schema
 * (`parseItem`) instead of casting them. Each secondary index serves one access pattern and is
 * named after it; index keys are sparse (an item is in an index only while it has its keys).
 *
 * | entity         | pk                 | sk                              | index keys (index: pk / sk)                             |
 * |----------------|--------------------|---------------------------------|---------------------------------------------------------|
 * | tenant         | TENANT#<tid>       | TENANT                          | tenants: TENANTS / <tid>                                |
 * | user           | TENANT#<tid>       | USER#<uid>                      |                                                         |
 * | usage          | TENANT#<tid>       | USAGE#<YYYY-MM>                 | (+ day counters seq_<YYYYMMDD>)                         |
 * | screen         | TENANT#<tid>       | SCREEN#<screen_id>              | pending-screens: TENANT#<tid>#PENDING / <screen_id>     |
 * |                |                    |                                 |   (only while no disposition and not superseded)        |
 * |                |                    |                                 | subject-screens: TENANT#<tid>#SUBJECT#<hash> / <sid>    |
 * |                |                    |                                 | client-screens: TENANT#<tid>#CLIENT#<cid> / <sid>       |
 * |                |                    |                                 |   (screens of a registered client)                      |
 * | batch          | TENANT#<tid>       | BATCH#<batch_id>                | tenant-batches: TENANT#<tid>#BATCHES (or #RUNS for a    |
 * |                |                    |                                 |   rescreen run) / <created_at>#<batch_id>               |
 * | batch-item     | TENANT#<tid>       | BATCH#<batch_id>#ITEM#<idx>     | batch-progress: TENANT#<tid>#BATCH#<bid> / <finish seq> |
 * |                |                    |                                 |   (only once done or failed)                            |
 * | client         | TENANT#<tid>       | CLIENT#<client_id>              | clients-by-risk: TENANT#<tid>#CLIENTS#<risk> / <cid>    |
 * |                |                    |                                 | clients-due: TENANT#<tid>#DUE#<shard> / <due>#<cid>     |
 * |                |                    |                                 |   (only while monitored)                                |
 * | client-ref     | TENANT#<tid>       | CLIENTREF#<reference>           |   (uniqueness of the tenant's own customer reference)   |
 * | client-person  | TENANT#<tid>       | CLIENTPERSON#<hash>             |   (one monitored client per person: folded name, dob,   |
 * |                |                    |                                 |    nationality; monitoring/client-person.ts)            |
 * | subject        | TENANT#<tid>       | SUBJECT#<hash>                  | subjects-by-activity: TENANT#<tid>#SUBJECTS / <at>#<h>  |
 * |                |                    |                                 | reviewed-subjects: TENANT#<tid>#REVIEWED / <at>#<h>     |
 * |                |                    |                                 |   (only while a screen of the subject has a decision)   |
 * | rescreen-      | TENANT#<tid>       | BATCH#<run_id>#CHANGE#<cid>     |   (a rescreen run is a batch of purpose `rescreen`;     |
 * |   change       |                    |                                 |    these list the clients whose outcome changed)        |
 * | audit          | TENANT#<tid>       | AUDIT#<seq, 12 digits>          |   (the hash-chained audit trail, audit/audit-table.ts)  |
 * | audit-pending  | TENANT#<tid>       | AUDITQ#<at>#<entry_id>          |   (an entry written with its action, not yet chained)   |
 * | rescreen-window| TENANT#<tid>       | WINDOW#<hash>                   |   (the screen holding the subject's rescreen window)    |
 * | running-run    | TENANT#<tid>       | RESCREEN#RUNNING                |   (the tenant's one running manual/scheduled run)       |
 * | request-rate   | TENANT#<tid>       | RATE                            |   (the tenant's request rate: one TAT, tenancy/request- |
 * |                |                    |                                 |    rate.ts; items RATE#<epoch s> of the fixed windows   |
 * |                |                    |                                 |    before it expire by TTL)                             |
 * | stream-slot    | TENANT#<tid>       | STREAMSLOT#<n>                  |   (one open stream each: tenancy/fair-use-table.ts)     |
 * | list-sync      | LISTS              | LIST#<list id>                  |   (no tenant: one row per synced watchlist;             |
 * |                |                    |                                 |   lib/sync/list-status-table.ts `listSyncKeys`)         |
 * | idempotency-key| TENANT#<tid>       | IDEMPOTENCY#<route>#<key>       |   (first response to an Idempotency-Key, kept 24 h)     |
 * | open-batch     | OPENBATCHES        | <tid>#<batch_id>                |   (no tenant first: operator path, batches to resume)   |
 * | client-name-key| NAMEKEY#<key>      | TENANT#<tid>#CLIENT#<cid>       |   (no tenant first: operator path, the list sync's      |
 * |                |                    |                                 |   delta rescreens; ids only, no name)                   |
 * | webhook        | TENANT#<tid>       | WEBHOOK#<webhook_id>            |   (an endpoint: URL, events, sealed secrets, failing)   |
 * | webhook-       | TENANT#<tid>       | WHDELIVERY#<wid>#<delivery_id>  |   (one event to one endpoint: payload, attempts, outcome|
 * |   delivery     |                    |                                 |    lib/webhooks/delivery-table.ts)                      |
 * | webhook-seq    | TENANT#<tid>       | WEBHOOKSEQ                      |   (the tenant's event sequence counter)                 |
 * | lists-event    | LISTSEVENTS        | <published at>#<version>        |   (no tenant: a list update every tenant may hear of)   |
 * | false-positive | TENANT#<tid>       | FALSEPOS#<person>#<listing>     |   (a decided false positive remembered for ad-hoc       |
 * |                |                    |                                 |    screens: screening/false-positive-table.ts)          |
 * | policy-version | TENANT#<tid>       | POLICY#<version, 12 digits>     |   (a screening policy the tenant adopted; never updated:|
 * |                |                    |                                 |    policy/policy-table.ts)                              |
 * | (any item)     |                    |                                 | webhook-outbox: OUTBOX / <occurred at>#<pk>#<sk>        |
 * |                |                    |                                 |   (only while it carries undrained `webhook_events`)    |
 *
 * Access patterns:
 * - authenticate a key: BatchGetItem user + tenant, consistent (the key names both; the hash is
 *   compared; the same request whether or not they exist)
 * - list a tenant's users: Query pk = TENANT#<tid>, begins_with(sk, USER#)
 * - disable a user: UpdateItem user, condition exists and not disabled; REMOVE key_hash; then
 *   ADD analyst_count -1 on the tenant (an analyst's seat)
 * - revoke a user's key: UpdateItem user, condition exists and not disabled; SET a new key_hash
 * - record an action: PutItem audit-pending (a fresh key: no condition, no contention) in the
 *   action's own transaction; the tenant's chain writer (DynamoDB Streams on AWS) then Queries
 *   pk = TENANT#<tid>, begins_with(sk, AUDITQ#), consistent, oldest first, reads the chain head
 *   (Query sk BETWEEN AUDIT#000000000001 AND AUDIT#099999999999, descending, Limit 1) and links
 *   them in ONE TransactWriteItems: PutItem audit seq (attribute_not_exists(pk)) and DeleteItem
 *   its audit-pending item (attribute_exists(pk)) for each, up to 50 entries
 * - read the audit trail: the same Query, descending (GET /audit) or ascending from a seq
 *   (verification, export)
 * - rotate a key: UpdateItem user, condition key_hash = the presented key's hash
 * - charge the quota: UpdateItem usage, ADD with condition used + n <= limit
 * - charge and number a screen: ONE UpdateItem on the monthly usage item,
 *   ADD used 1, seq_<YYYYMMDD> 1 with the quota condition (a refused screen consumes no id);
 *   without charging (batch subjects, pre-charged) ADD seq_<YYYYMMDD> 1 only
 * - list screens newest first: Query pk = TENANT#<tid>, begins_with(sk, SCREEN#), descending
 * - list pending screens: Query pending-screens (sparse: the keys leave the item with its first
 *   disposition, or when a newer screen of the same client supersedes it)
 * - dispose: UpdateItem screen, condition on the current disposition (one write per rule):
 *   record = attribute_not_exists(disposition); override = attribute_exists(pk);
 *   approve = disposition exists, no approval yet, disposition.author.user_id <> the admin,
 *   decision_version = the version the admin reviewed; all: history_bytes leaves room.
 *   The same write appends to `history` (list_append), counts history_count/history_bytes,
 *   sets decision_version (old history_count + 1) and REMOVEs the pending-screens keys.
 * - delete a screen: DeleteItem screen, analysts with condition created_by.user_id = caller;
 *   under the tenant's retention lock also decided no later than now - retention_days
 *   (history, notes and its index entries go with the item)
 * - retention settings: GetItem tenant (retention_days, retention_lock); UpdateItem tenant,
 *   condition the values the change was judged against (lib/tenancy/retention.ts)
 * - retention purge (daily, per tenant with retention_days): Query pk = TENANT#<tid>, sk BETWEEN
 *   SCREEN# AND SCREEN#SCR-<cut-off day>~, pages of 100; DeleteItem each due screen with the
 *   purge rule as its condition (lib/jobs/retention-purge.ts)
 * - read one screen / its history: GetItem screen (consistent)
 * - Idempotency-Key: PutItem idempotency-key, condition attribute_not_exists (or expired, or a
 *   dead first request), before the use case; UpdateItem with its result after; a repeat reads
 *   the stored result from the refused put; before replaying it, GetItem the screen it returned
 *   (ProjectionExpression pk): gone, UpdateItem the record to `gone` (REMOVE result)
 * - rescreen window: Query subject-screens pk = TENANT#<tid>#SUBJECT#<subject hash>, descending,
 *   Limit 1 (the subject's latest screen, whole item); outside the window when screened_at +
 *   RESCREEN_WINDOW_HOURS has passed. A fresh screen first takes the window: UpdateItem
 *   rescreen-window, condition attribute_not_exists or screened_at <= now - window (one fresh
 *   screen per subject per window, whatever runs concurrently); a forced screen moves it
 *   forward; deleting the screen that holds it deletes it (condition screen_id = that screen).
 * - list cursors: base64url of {list, tenant, last key}; the start key is rebuilt from the
 *   caller's tenant, so a cursor can never address another tenant's partition
 * - list tenants (ops): Query tenants pk = TENANTS
 * - start a batch: BatchWriteItem the batch items (status queued, with the subject), then PutItem
 *   batch, condition attribute_not_exists (total, types, plan, author; `finished` counter starts
 *   at 0); quota for every subject charged before it with one conditional ADD
 * - verify a queued job (worker): GetItem batch (consistent) and GetItem user (its author), once
 *   per batch per warm worker
 * - open batches (resume after a local restart): PutItem open-batch first when a batch starts,
 *   DeleteItem when its last subject is recorded; Query pk = OPENBATCHES; a batch's unfinished
 *   subjects: Query pk, begins_with(sk, BATCH#<batch_id>#ITEM#), status queued or processing
 * - claim a batch subject (worker, idempotent redelivery): UpdateItem batch item, condition
 *   queued, or claimed with an expired lease and still processing; returns the stored subject
 * - number a finished subject: UpdateItem batch, ADD finished 1 (returns the finish sequence)
 * - finish / fail a batch subject: UpdateItem batch item, condition still processing under this
 *   claim (done) or not done (failed); sets the sparse batch-progress keys
 * - list a tenant's batches or rescreen runs, newest first (GET /batch, GET /clients/rescreen/runs):
 *   Query tenant-batches pk = TENANT#<tid>#BATCHES (or #RUNS), descending; the batch record
 *   carries the keys from its PutItem, so the query reads only batch records, never their items
 * - a batch's results (GET /batch/{id}/results): GetItem batch, Query pk, begins_with(sk,
 *   BATCH#<batch_id>#ITEM#) (at most 500 items), BatchGetItem the screens they name (100 a call)
 * - open monitoring alerts (GET /alerts): the screen list's Query (pk, begins_with SCREEN#,
 *   descending, bounded like its filters) with the filter attribute_exists(alert_since), then
 *   BatchGetItem the clients of the page: an alert is open on the client's current screen only
 * - stream progress: Query batch-progress pk = TENANT#<tid>#BATCH#<batch_id>, sk > last
 *   contiguous sequence read (only the newly finished subjects are read on each poll)
 * - register a client: consistent GetItem of its client-ref and client-person claims (one to
 *   four, monitoring/client-person.ts; a client in the way that is active: 409 before anything is
 *   screened), then ONE TransactWriteItems of the client (attribute_not_exists), its client-ref
 *   claim and its client-person claims (UpdateItem: its own names it, the more general ones list
 *   it in a string set; each conditioned on no other client and the sets it needs empty); stopping
 *   it is one transaction of the stop and the release of the claims it holds; list clients newest first: Query pk, begins_with
 *   CLIENT# descending (client ids sort by time); by risk level: Query clients-by-risk
 * - a client's screens: Query client-screens, descending
 * - clients due for rescreen (a tenant's trigger; the hourly scheduler does it for each tenant):
 *   Query each of the tenant's clients-due shards with sk <= now, in parallel: the items read
 *   are the clients due, never the clients registered; a claimed client's due key moves past
 *   its lease, so a run that dies leaves it due again, not lost
 * - count a request (every authenticated request): UpdateItem request-rate, SET tat = now + T
 *   with the condition tat <= now, or SET tat = tat + T with now < tat <= now + τ (the one the
 *   TAT last seen says; the other when refused on the TAT it found), lib/tenancy/fair-use-table.ts
 * - open a stream: UpdateItem stream-slot n, condition no stream_id or lease passed, trying the
 *   plan's slots from a random one; its end: UpdateItem REMOVE stream_id, condition still its own
 * - claim the tenant's running rescreen run (manual trigger, schedule): PutItem running-run,
 *   condition attribute_not_exists or lease passed (or run_id = a run seen finished); on refusal
 *   GetItem the batch record of the run it names (lib/monitoring/run-table.ts)
 * - claim a due client: UpdateItem client, condition next_due_at = the due time the run saw
 *   (two runs, or a run and a manual trigger, screen a client at most once per due window)
 * - a re-screen's baseline (the client's last settled state): GetItem the previous screen, and
 *   when it is unsettled GetItem the newer of its baseline_screen_id and the client's
 *   settled_screen_id (two reads at most, never a query of the client's screens)
 * - a settled decision on a client's screen: UpdateItem client SET settled_screen_id, condition
 *   absent or <= the decided screen (only forward); then UpdateItem the client's current screen,
 *   condition still undecided (or holding the decision carried from the decided screen)
 * - clients a list change could match (the list sync, after publishing): the client is filed at
 *   registration under one item per sound key of its name (lib/monitoring/client-name-keys.ts:
 *   pairs of name parts, so no key holds every client sharing one common part), deleted when
 *   monitoring stops; the sync Queries pk = NAMEKEY#<key> for the keys of each added or amended
 *   listed person, so the items read follow the size of the change, not the number of clients.
 *   The partition is keyed by name, not tenant: only the sync reads it, and it answers no tenant;
 *   each hit is then read from its own tenant's partition (GetItem client). A common pair is a
 *   large partition but never a hot one: it is written once per registration and read once per
 *   sync that lists someone of that name.
 * - list sync status (the list sync writes, /dbstatus reads): UpdateItem list-sync, condition
 *   last_attempt_at <= this run's start (an older run never overwrites a newer one's record);
 *   Query pk = LISTS for every list's row
 * - one row per screened subject: UpdateItem subject on every screen, disposition and delete;
 *   GET /clients/screened = Query subjects-by-activity descending; GET /clients/reviewed =
 *   Query reviewed-subjects descending (sparse)
 * - webhook events (lib/outbox/outbox.ts): the write that makes the change (a re-screen's PutItem
 *   of a screen with an alert, a disposition's UpdateItem, the last subject of a batch) also
 *   appends the event to the item's `webhook_events` and sets its sparse webhook-outbox keys; the
 *   drain Queries webhook-outbox pk = OUTBOX oldest first, queues a delivery per subscribed
 *   endpoint, then REMOVEs the drained events (condition: the same first event ids), leaving the
 *   index when none is left. The partition is an operator path: it answers no tenant.
 * - a tenant's webhook endpoints: Query pk = TENANT#<tid>, begins_with(sk, WEBHOOK#); the plan's
 *   cap is counted on the tenant item (ADD webhook_count 1, condition below the cap)
 * - a delivery's log: PutItem webhook-delivery (condition attribute_not_exists: a re-drained event
 *   is not queued twice), UpdateItem per attempt (list_append, capped); an endpoint's deliveries:
 *   Query begins_with(sk, WHDELIVERY#<wid>#) descending
 *
 * Each stored kind has one keeper module (`*-table.ts`, in the folder that owns it) that declares
 * its item as a schema, builds its keys from `keys` below and offers its writes as values
 * (./write.ts); the keepers: tenant, user, usage, request-rate and stream-slot in lib/tenancy/
 * (tenant-table, user-table, usage-table, fair-use-table); screen, rescreen-window, subject and false-positive
 * in lib/screening/ (screen-table, window-table, subject-table, false-positive-table); client, client-ref, client-person,
 * client-name-key, running-run and rescreen-change in lib/monitoring/ (client-table,
 * client-claim-table, client-name-key-table, run-table); batch, batch-item and open-batch in
 * lib/batch/batch-table; idempotency-key in lib/http/idempotency-table; list-sync and lists-event
 * in lib/sync/ (list-status-table, lists-event-table); audit in lib/audit/audit-table; webhook,
 * webhook-delivery and webhook-seq in lib/webhooks/ (webhook-table, delivery-table); the
 * webhook-outbox index in lib/outbox/outbox-table; policy-version in lib/policy/policy-table.
 *
 * Every invariant is one conditional write; where an action and its records belong together (a
 * decision and its audit entry, a client and its claims), their writes are one transaction
 * (./write.ts `transact`, TransactWriteItems). docs/table-design.md lists what is still written apart.
 */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB TTL deletes expired items eventually, reads filter them at once. */
  ttlAttribute: 'expires_at',
} as const;

/** The secondary indexes, each named after the one access pattern it serves. */
export const INDEXES = {
  tenants: { name: 'tenants', partitionKey: 'tenants_pk', sortKey: 'tenants_sk' },
  pendingScreens: { name: 'pending-screens', partitionKey: 'pending_pk', sortKey: 'pending_sk' },
  subjectScreens: { name: 'subject-screens', partitionKey: 'subject_pk', sortKey: 'subject_sk' },
  clientScreens: { name: 'client-screens', partitionKey: 'client_pk', sortKey: 'client_sk' },
  batchProgress: { name: 'batch-progress', partitionKey: 'progress_pk', sortKey: 'progress_sk' },
  clientsByRisk: { name: 'clients-by-risk', partitionKey: 'risk_pk', sortKey: 'risk_sk' },
  clientsDue: { name: 'clients-due', partitionKey: 'due_pk', sortKey: 'due_sk' },
  subjectsByActivity: { name: 'subjects-by-activity', partitionKey: 'activity_pk', sortKey: 'activity_sk' },
  reviewedSubjects: { name: 'reviewed-subjects', partitionKey: 'reviewed_pk', sortKey: 'reviewed_sk' },
  webhookOutbox: { name: 'webhook-outbox', partitionKey: 'outbox_pk', sortKey: 'outbox_sk' },
  tenantBatches: { name: 'tenant-batches', partitionKey: 'batches_pk', sortKey: 'batches_sk' },
} as const;

export type IndexName = keyof typeof INDEXES;

/** The entity marker every item carries in `entity`. */
export type Entity =
  | 'tenant'
  | 'user'
  | 'usage'
  | 'screen'
  | 'batch'
  | 'batch-item'
  | 'client'
  | 'client-ref'
  | 'client-person'
  | 'subject'
  | 'rescreen-change'
  | 'audit'
  | 'rescreen-window'
  | 'running-run'
  | 'request-rate'
  | 'stream-slot'
  | 'list-sync'
  | 'idempotency-key'
  | 'open-batch'
  | 'client-name-key'
  | 'webhook'
  | 'webhook-delivery'
  | 'webhook-seq'
  | 'lists-event'
  | 'false-positive'
  | 'policy-version';

/** `{ <index pk attribute>: pk, <index sk attribute>: sk }`: an item's entry in one index. */
export function indexKeys(index: IndexName, pk: string, sk: string): Record<string, string> {
  const { partitionKey, sortKey } = INDEXES[index];
  return { [partitionKey]: pk, [sortKey]: sk };
}

/** The attribute names of an index's keys, for REMOVE expressions (leaving a sparse index). */
export function indexAttributes(index: IndexName): [string, string] {
  return [INDEXES[index].partitionKey, INDEXES[index].sortKey];
}

/** Primary keys of each entity, and the partition values of its index entries. */
export const keys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  user: (tenantId: string, userId: string) => ({ pk: `TENANT#${tenantId}`, sk: `USER#${userId}` }),
  usage: (tenantId: string, month: string) => ({ pk: `TENANT#${tenantId}`, sk: `USAGE#${month}` }),
  screen: (tenantId: string, screenId: string) => ({ pk: `TENANT#${tenantId}`, sk: `SCREEN#${screenId}` }),
  batch: (tenantId: string, batchId: string) => ({ pk: `TENANT#${tenantId}`, sk: `BATCH#${batchId}` }),
  batchItem: (tenantId: string, batchId: string, index: number) => ({
    pk: `TENANT#${tenantId}`,
    sk: `BATCH#${batchId}#ITEM#${String(index).padStart(4, '0')}`,
  }),
  client: (tenantId: string, clientId: string) => ({ pk: `TENANT#${tenantId}`, sk: `CLIENT#${clientId}` }),
  clientRef: (tenantId: string, reference: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `CLIENTREF#${reference}`,
  }),
  /** One monitored client per person (lib/monitoring/client-person.ts): the hash of who they are. */
  clientPerson: (tenantId: string, personHash: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `CLIENTPERSON#${personHash}`,
  }),
  subject: (tenantId: string, subjectHash: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `SUBJECT#${subjectHash}`,
  }),
  /** A client whose outcome changed in a rescreen run (a run is a batch: its id is the batch id). */
  rescreenRunChange: (tenantId: string, runId: string, clientId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `BATCH#${runId}#CHANGE#${clientId}`,
  }),
  /** A batch not yet finished (lib/batch/batch-table.ts): resumed after a local restart. */
  openBatch: (tenantId: string, batchId: string) => ({ pk: 'OPENBATCHES', sk: `${tenantId}#${batchId}` }),
  openBatchesPartition: 'OPENBATCHES',
  /** A client filed under one sound key of its name (lib/monitoring/client-name-keys.ts). */
  clientNameKey: (nameKey: string, tenantId: string, clientId: string) => ({
    pk: `NAMEKEY#${nameKey}`,
    sk: `TENANT#${tenantId}#CLIENT#${clientId}`,
  }),
  nameKeyPartition: (nameKey: string) => `NAMEKEY#${nameKey}`,
  /** A request's Idempotency-Key, per tenant and route (lib/http/idempotency-table.ts). */
  idempotencyKey: (tenantId: string, route: string, key: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `IDEMPOTENCY#${route}#${key}`,
  }),
  /** Entry `seq` of the tenant's hash-chained audit trail (lib/audit/audit-table.ts), seq from 1. */
  auditEntry: (tenantId: string, seq: number) => ({
    pk: `TENANT#${tenantId}`,
    sk: `AUDIT#${String(seq).padStart(12, '0')}`,
  }),
  /**
   * An audit entry written with its action and not yet linked into the chain: the chain writer
   * (lib/audit/chain-writer.ts) takes them in key order, so time order, and deletes each as it
   * puts its chained entry.
   */
  auditPending: (tenantId: string, at: string, entryId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `AUDITQ#${at}#${entryId}`,
  }),
  /** A tenant's request rate: the TAT of its next request (lib/tenancy/fair-use-table.ts). */
  requestRate: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'RATE' }),
  /** One of a tenant's open-stream slots (lib/tenancy/fair-use-table.ts). */
  streamSlot: (tenantId: string, slot: number) => ({ pk: `TENANT#${tenantId}`, sk: `STREAMSLOT#${slot}` }),
  /** The tenant's running rescreen run (lib/monitoring/run-table.ts). */
  runningRun: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'RESCREEN#RUNNING' }),
  /**
   * A decided false positive remembered for the tenant (lib/screening/false-positive-table.ts):
   * the folded subject's key, then the listing's, so one Query finds a subject's memories.
   */
  falsePositive: (tenantId: string, personKey: string, listingKey: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `FALSEPOS#${personKey}#${listingKey}`,
  }),
  /** A screening policy version the tenant adopted (lib/policy/policy-table.ts), from 1. */
  policyVersion: (tenantId: string, version: number) => ({
    pk: `TENANT#${tenantId}`,
    sk: `POLICY#${String(version).padStart(12, '0')}`,
  }),
  /** The screen holding a subject's rescreen window (lib/screening/window-table.ts). */
  rescreenWindow: (tenantId: string, subjectHash: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `WINDOW#${subjectHash}`,
  }),
  /**
   * tenant-batches partition of a tenant's batches (`batches`: POST /batch/stream and
   * /batch/clients/stream) or rescreen runs (`runs`), sorted by `<created_at>#<batch_id>`.
   */
  tenantBatchesIndex: (tenantId: string, kind: 'batches' | 'runs') =>
    `TENANT#${tenantId}#${kind === 'runs' ? 'RUNS' : 'BATCHES'}`,
  /** batch-progress partition of a batch's finished subjects, sorted by finish sequence. */
  batchProgressIndex: (tenantId: string, batchId: string) => `TENANT#${tenantId}#BATCH#${batchId}`,
  tenantPartition: (tenantId: string) => `TENANT#${tenantId}`,
  pendingIndex: (tenantId: string) => `TENANT#${tenantId}#PENDING`,
  /** subject-screens partition of a subject's screens (rescreen window), sorted by screen id. */
  subjectIndex: (tenantId: string, subjectHash: string) => `TENANT#${tenantId}#SUBJECT#${subjectHash}`,
  /** client-screens partition: a registered client's screens, sorted by screen id. */
  clientScreensIndex: (tenantId: string, clientId: string) => `TENANT#${tenantId}#CLIENT#${clientId}`,
  clientsByRiskIndex: (tenantId: string, risk: string) => `TENANT#${tenantId}#CLIENTS#${risk}`,
  subjectsIndex: (tenantId: string) => `TENANT#${tenantId}#SUBJECTS`,
  reviewedIndex: (tenantId: string) => `TENANT#${tenantId}#REVIEWED`,
  /** clients-due shard of a tenant: its clients spread over the shards by client id. */
  dueShard: (tenantId: string, shard: number) => `TENANT#${tenantId}#DUE#${String(shard).padStart(2, '0')}`,
  tenantsIndex: 'TENANTS',
  /** A webhook endpoint of a tenant (lib/webhooks/webhook-table.ts). */
  webhook: (tenantId: string, webhookId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `WEBHOOK#${webhookId}`,
  }),
  /** One event's delivery to one endpoint, with its attempts (lib/webhooks/delivery-table.ts). */
  webhookDelivery: (tenantId: string, webhookId: string, deliveryId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `WHDELIVERY#${webhookId}#${deliveryId}`,
  }),
  webhookDeliveryPrefix: (webhookId: string) => `WHDELIVERY#${webhookId}#`,
  /** The tenant's webhook event sequence (lib/webhooks/webhook-table.ts). */
  webhookSequence: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'WEBHOOKSEQ' }),
  /** A published list update, for every tenant's `lists.updated` subscribers (lib/sync). */
  listsEvent: (publishedAt: string, version: string) => ({
    pk: 'LISTSEVENTS',
    sk: `${publishedAt}#${version}`,
  }),
  /** The webhook-outbox partition: every item carrying undrained events (lib/outbox/outbox-table.ts). */
  outboxIndex: 'OUTBOX',
} as const;

/** The table definition the local runtime and tests create; infra/cdk/stack.ts declares the same keys. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey } = TABLE_KEYS;
  const attr = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      attr(partitionKey),
      attr(sortKey),
      ...Object.values(INDEXES).flatMap((i) => [attr(i.partitionKey), attr(i.sortKey)]),
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: Object.values(INDEXES).map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
