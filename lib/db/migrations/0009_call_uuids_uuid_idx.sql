-- A platform key's `uuid` filter (GET /v1/calls, its CSV export, GET /v1/usage without a group) finds every group's call
-- with that uuid here, then each call by calls' primary key (billing_group_id, start_time, id): one partition each,
-- instead of reading every partition (calls.uuid has had no index since 0008). A bound key's search uses
-- call_uuids_pkey (billing_group_id, uuid). Not unique: two groups may hold the same uuid.
-- Built in the migration's transaction (CREATE INDEX CONCURRENTLY cannot run in one), so ingest waits for the build:
-- on a large PostgreSQL table an operator may run `CREATE INDEX CONCURRENTLY IF NOT EXISTS "call_uuids_uuid_idx" ON
-- "call_uuids" ("uuid")` before upgrading; this migration then does nothing.
CREATE INDEX IF NOT EXISTS "call_uuids_uuid_idx" ON "call_uuids" USING btree ("uuid");
