-- The importer's v2 (Citus) layout, built on top of this service's v1 schema (migration 0001) from
-- the importer's documented v2 layout (docs/scaling.md, "Citus (v2 layout)"):
-- the same tables and columns, with
--   * native monthly RANGE partitions on the consensus timestamp for the time-partitioned tables
--     (record_file on consensus_end), 2019-09 to 2026-12 as with the importer's production
--     placeholders, plus one partition before and one after that span, which the test data
--     (timestamps from 1 ns) needs and a real v2 database does not have;
--   * v2 primary keys, most of which include the distribution column;
--   * the distribution made by Citus's create_distributed_table / create_reference_table on a real
--     cluster (test/support/citus.ts), recorded by their stubs on plain PostgreSQL (citus-stub.sql):
--     one colocation group led by entity, record_file a plain local table.
-- v2 has no domains; the v1 ones are kept, which changes nothing the service sees (PostgreSQL reports
-- a domain's base type).

-- Re-creates `tab` as a table partitioned by range on `col`, with the same columns, defaults and
-- (non-key) indexes, and `pk` as its primary key (none when null).
create procedure pg_temp.partition_by_time(tab text, col text, pk text) language plpgsql as $$
declare
  defs text[];
  def text;
  m timestamptz;
begin
  select coalesce(array_agg(i.indexdef), '{}') into defs
    from pg_indexes i
   where i.schemaname = 'public' and i.tablename = tab
     and i.indexname not in (select conname from pg_constraint where conrelid = ('public.' || tab)::regclass);
  execute format('create table public.%I (like public.%I including defaults) partition by range (%I)', tab || '_v2', tab, col);
  execute format('drop table public.%I', tab);
  execute format('alter table public.%I rename to %I', tab || '_v2', tab);
  if pk is not null then
    execute format('alter table public.%I add constraint %I primary key (%s)', tab, tab || '_pkey', pk);
  end if;
  foreach def in array defs loop
    execute def;
  end loop;
  execute format('create table public.%I partition of public.%I for values from (minvalue) to (%s)',
    tab || '_pmin', tab, (extract(epoch from timestamptz '2019-09-01 UTC') * 1000000000)::bigint);
  -- monthly partitions <tab>_pYYYY_MM with bigint nanosecond bounds, made here as the importer's own
  -- partition procedure does: Citus's create_time_partitions takes only date and timestamp columns
  -- (the importer adds casts from bigint for it; this layout keeps v1's nanos_timestamp domain)
  m := timestamptz '2019-09-01 UTC';
  while m < timestamptz '2027-01-01 UTC' loop
    execute format('create table public.%I partition of public.%I for values from (%s) to (%s)',
      tab || '_p' || to_char(m at time zone 'UTC', 'YYYY_MM'), tab,
      (extract(epoch from m) * 1000000000)::bigint, (extract(epoch from m + interval '1 month') * 1000000000)::bigint);
    m := m + interval '1 month';
  end loop;
  execute format('create table public.%I partition of public.%I for values from (%s) to (maxvalue)',
    tab || '_pmax', tab, (extract(epoch from timestamptz '2027-01-01 UTC') * 1000000000)::bigint);
end $$;

call pg_temp.partition_by_time('contract_result', 'consensus_timestamp', 'consensus_timestamp, contract_id');
call pg_temp.partition_by_time('contract_log', 'consensus_timestamp', 'consensus_timestamp, index, contract_id');
call pg_temp.partition_by_time('contract_action', 'consensus_timestamp', 'consensus_timestamp, index, payer_account_id');
call pg_temp.partition_by_time('contract_state_change', 'consensus_timestamp', 'consensus_timestamp, contract_id, slot');
call pg_temp.partition_by_time('contract_transaction', 'consensus_timestamp', 'consensus_timestamp, entity_id');
call pg_temp.partition_by_time('ethereum_transaction', 'consensus_timestamp', 'consensus_timestamp, payer_account_id');
call pg_temp.partition_by_time('crypto_transfer', 'consensus_timestamp', null);
call pg_temp.partition_by_time('token_transfer', 'consensus_timestamp', null);
call pg_temp.partition_by_time('record_file', 'consensus_end', 'consensus_end, node_id');
-- transaction: no primary key since V2.5.1; its indexes are (consensus_timestamp),
-- (payer_account_id, consensus_timestamp), (payer_account_id, valid_start_ns), (type, consensus_timestamp).
call pg_temp.partition_by_time('transaction', 'consensus_timestamp', null);
drop index if exists transaction__transaction_id;
create index transaction__transaction_id on transaction (payer_account_id, valid_start_ns);
create index transaction__consensus_timestamp on transaction (consensus_timestamp);

-- file_data: a plain distributed table again since V2.2.0, which re-created it without its primary key.
alter table file_data drop constraint file_data_pkey;

-- transaction_hash: not list-partitioned in v2 (distributed by distribution_id instead).
create table transaction_hash_v2 (like transaction_hash including defaults);
drop table transaction_hash;
alter table transaction_hash_v2 rename to transaction_hash;
create index transaction_hash__hash on transaction_hash using hash (substring(hash from 1 for 32));

-- v2 has no domains, and Citus co-locates only distribution columns of one type: the two that are
-- entity_id in v1 become bigint like the rest of the group (binary-compatible, nothing rewritten).
alter table transaction alter column payer_account_id type bigint;
alter table file_data alter column entity_id type bigint;

-- Distribution (V2.0.1, V2.2.0, V2.4.1): one colocation group led by entity, with the importer's
-- shard counts (shardCount 16, hashShardCount 6); on real Citus (test/support/citus.ts) these are
-- Citus's own functions, on the stub they are recorded (citus-stub.sql).
select create_distributed_table('entity', 'id', shard_count := 16);
select create_distributed_table('entity_history', 'id', colocate_with => 'entity');
select create_distributed_table('contract', 'id', colocate_with => 'entity');
select create_distributed_table('contract_result', 'contract_id', colocate_with => 'entity');
select create_distributed_table('contract_log', 'contract_id', colocate_with => 'entity');
select create_distributed_table('contract_state', 'contract_id', colocate_with => 'entity');
select create_distributed_table('contract_state_change', 'contract_id', colocate_with => 'entity');
select create_distributed_table('contract_transaction', 'entity_id', colocate_with => 'entity');
select create_distributed_table('contract_action', 'payer_account_id', colocate_with => 'entity');
select create_distributed_table('ethereum_transaction', 'payer_account_id', colocate_with => 'entity');
select create_distributed_table('transaction', 'payer_account_id', colocate_with => 'entity');
select create_distributed_table('file_data', 'entity_id', colocate_with => 'entity');
select create_distributed_table('crypto_transfer', 'payer_account_id', colocate_with => 'entity');
select create_distributed_table('token_transfer', 'payer_account_id', colocate_with => 'entity');
select create_distributed_table('contract_transaction_hash', 'hash', shard_count := 6);
-- the importer distributes it by hash first and moves it to distribution_id (V2.4.1): the same end state
select create_distributed_table('transaction_hash', 'distribution_id', shard_count := 6);
select create_reference_table('account_balance_file');
