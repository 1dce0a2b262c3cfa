-- Citus's table functions, stubbed on plain PostgreSQL (Citus cannot be installed here): each call
-- records the distribution in citus_stub.dist instead of creating shards. The plan check
-- (test/v2/planCheck.test.ts) reads that table to know which tables are distributed, by which column
-- and in which colocation group. Real Citus keeps this in pg_dist_partition.
create schema citus_stub;

create table citus_stub.dist (
  logicalrelid regclass primary key,
  -- null for reference tables
  distribution_column text,
  -- 'hash' or 'reference'
  kind text not null,
  -- the table whose group it joins (itself when it starts one)
  colocation text not null,
  shard_count int
);

create function public.create_distributed_table(
  table_name regclass, distribution_column text, distribution_type text default 'hash',
  colocate_with text default 'default', shard_count int default null)
returns void language plpgsql as $$
begin
  perform 1 from pg_attribute where attrelid = table_name and attname = distribution_column and not attisdropped;
  if not found then
    raise exception 'column "%" of relation "%" does not exist', distribution_column, table_name;
  end if;
  insert into citus_stub.dist values (
    table_name, distribution_column, distribution_type,
    case when colocate_with in ('default', 'none') then table_name::text else colocate_with::regclass::text end,
    shard_count);
end $$;

create function public.create_reference_table(table_name regclass) returns void language sql as $$
  insert into citus_stub.dist values (table_name, null, 'reference', table_name::text, 1);
$$;

create function public.undistribute_table(table_name regclass) returns void language sql as $$
  delete from citus_stub.dist where logicalrelid = table_name;
$$;

-- Native RANGE partitions on a bigint nanosecond key, one per interval from start_from up to end_at,
-- named <table>_pYYYY_MM, as Citus's create_time_partitions does for the importer (which passes
-- nanosecond bounds through its own wrapper).
create function public.create_time_partitions(
  table_name regclass, partition_interval interval, end_at timestamptz, start_from timestamptz)
returns boolean language plpgsql as $$
declare
  m timestamptz := start_from;
  next timestamptz;
  nanos constant numeric := 1000000000;
begin
  while m < end_at loop
    next := m + partition_interval;
    execute format('create table %I partition of %s for values from (%s) to (%s)',
      table_name::text || '_p' || to_char(m at time zone 'UTC', 'YYYY_MM'), table_name,
      (extract(epoch from m) * nanos)::bigint, (extract(epoch from next) * nanos)::bigint);
    m := next;
  end loop;
  return true;
end $$;
