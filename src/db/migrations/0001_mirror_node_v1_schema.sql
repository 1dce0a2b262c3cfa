-- GENERATED FILE, DO NOT EDIT. Produced by scripts/generate-schema.ts from
-- shared/reference/schema/{types,tables,constraints,partitions,indexes}.tsv: the catalog of the
-- Hedera mirror node v1 schema (all importer v1 Flyway SQL migrations applied to PostgreSQL 15).
-- Meant to run once on an empty database, in a single transaction.

create extension if not exists btree_gist;
create extension if not exists pg_trgm;

create type public.airdrop_state as enum ('CANCELLED', 'CLAIMED', 'PENDING');
create domain public.entity_id as bigint;
create domain public.entity_num as integer;
create domain public.entity_realm_num as smallint;
create type public.entity_type as enum ('UNKNOWN', 'ACCOUNT', 'CONTRACT', 'FILE', 'TOPIC', 'TOKEN', 'SCHEDULE');
create domain public.entity_type_id as character(1);
create type public.errata_type as enum ('INSERT', 'DELETE');
create domain public.hbar_tinybars as bigint;
create domain public.nanos_timestamp as bigint;
create type public.token_pause_status as enum ('NOT_APPLICABLE', 'PAUSED', 'UNPAUSED');
create type public.token_supply_type as enum ('INFINITE', 'FINITE');
create type public.token_type as enum ('FUNGIBLE_COMMON', 'NON_FUNGIBLE_UNIQUE');

create table public.account_balance (
  consensus_timestamp nanos_timestamp not null,
  balance hbar_tinybars not null,
  account_id entity_id not null,
  constraint account_balance_pkey PRIMARY KEY (account_id, consensus_timestamp)
) partition by RANGE (consensus_timestamp);
create table public.account_balance_p1970_01 partition of public.account_balance FOR VALUES FROM ('0') TO ('315532800000000000');
create table public.account_balance_p1980_01 partition of public.account_balance FOR VALUES FROM ('315532800000000000') TO ('631152000000000000');
create table public.account_balance_p1990_01 partition of public.account_balance FOR VALUES FROM ('631152000000000000') TO ('946684800000000000');
create table public.account_balance_p2000_01 partition of public.account_balance FOR VALUES FROM ('946684800000000000') TO ('1262304000000000000');
create table public.account_balance_p2010_01 partition of public.account_balance FOR VALUES FROM ('1262304000000000000') TO ('1577836800000000000');
create table public.account_balance_p2020_01 partition of public.account_balance FOR VALUES FROM ('1577836800000000000') TO ('1893456000000000000');
create table public.account_balance_p2030_01 partition of public.account_balance FOR VALUES FROM ('1893456000000000000') TO ('2208988800000000000');

create table public.account_balance_file (
  consensus_timestamp bigint not null,
  count bigint not null,
  load_start bigint not null,
  load_end bigint not null,
  file_hash character varying(96),
  name character varying(250) not null,
  bytes bytea,
  time_offset integer default 0 not null,
  node_id bigint not null,
  synthetic boolean default false not null,
  constraint account_balance_file_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.account_balance_old (
  consensus_timestamp nanos_timestamp not null,
  balance hbar_tinybars not null,
  account_id entity_id not null,
  constraint account_balance__pk PRIMARY KEY (consensus_timestamp, account_id)
);

create table public.address_book (
  start_consensus_timestamp nanos_timestamp not null,
  end_consensus_timestamp nanos_timestamp,
  file_id entity_id not null,
  node_count integer,
  file_data bytea not null,
  constraint address_book_pkey PRIMARY KEY (start_consensus_timestamp)
);

create table public.address_book_entry (
  consensus_timestamp nanos_timestamp not null,
  memo character varying(128),
  public_key character varying(1024),
  node_id bigint not null,
  node_account_id entity_id not null,
  node_cert_hash bytea,
  description character varying(100),
  stake bigint,
  constraint address_book_entry_pkey PRIMARY KEY (consensus_timestamp, node_id)
);

create table public.address_book_service_endpoint (
  consensus_timestamp bigint not null,
  ip_address_v4 character varying(15) default ''::character varying not null,
  node_id bigint not null,
  port integer not null,
  domain_name character varying(253) default ''::character varying not null
);

create table public.assessed_custom_fee (
  amount bigint not null,
  collector_account_id bigint not null,
  consensus_timestamp bigint not null,
  token_id bigint,
  effective_payer_account_ids bigint[] not null,
  payer_account_id bigint not null
);

create table public.contract (
  id bigint not null,
  file_id bigint,
  initcode bytea,
  runtime_bytecode bytea,
  constraint contract_pkey PRIMARY KEY (id)
);

create table public.contract_action (
  call_depth integer not null,
  call_type integer,
  caller bigint,
  caller_type entity_type default 'CONTRACT'::entity_type,
  consensus_timestamp bigint not null,
  gas bigint not null,
  gas_used bigint not null,
  index integer not null,
  input bytea,
  recipient_account bigint,
  recipient_address bytea,
  recipient_contract bigint,
  result_data bytea,
  result_data_type integer not null,
  value bigint not null,
  call_operation_type integer,
  payer_account_id bigint not null,
  constraint contract_action_pkey PRIMARY KEY (consensus_timestamp, index)
);

create table public.contract_log (
  bloom bytea not null,
  consensus_timestamp bigint not null,
  contract_id bigint not null,
  data bytea not null,
  index integer not null,
  topic0 bytea,
  topic1 bytea,
  topic2 bytea,
  topic3 bytea,
  payer_account_id bigint not null,
  root_contract_id bigint,
  transaction_hash bytea,
  transaction_index integer,
  constraint contract_log_pkey PRIMARY KEY (consensus_timestamp, index)
);

create table public.contract_result (
  function_parameters bytea not null,
  gas_limit bigint not null,
  function_result bytea,
  gas_used bigint,
  consensus_timestamp nanos_timestamp not null,
  amount bigint,
  bloom bytea,
  call_result bytea,
  contract_id bigint not null,
  created_contract_ids bigint[],
  error_message text,
  payer_account_id bigint not null,
  sender_id bigint,
  failed_initcode bytea,
  transaction_hash bytea,
  transaction_index integer,
  transaction_result smallint not null,
  transaction_nonce integer default 0 not null,
  gas_consumed bigint,
  constraint contract_result_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.contract_state (
  contract_id bigint not null,
  created_timestamp bigint not null,
  modified_timestamp bigint not null,
  slot bytea not null,
  value bytea,
  constraint contract_state_pkey PRIMARY KEY (contract_id, slot)
);

create table public.contract_state_change (
  consensus_timestamp bigint not null,
  contract_id bigint not null,
  payer_account_id bigint not null,
  slot bytea not null,
  value_read bytea not null,
  value_written bytea,
  migration boolean default false not null,
  constraint contract_state_change_pkey PRIMARY KEY (consensus_timestamp, contract_id, slot)
);

create table public.contract_transaction (
  consensus_timestamp bigint not null,
  entity_id bigint not null,
  contract_ids bigint[] not null,
  payer_account_id bigint not null,
  constraint contract_transaction__pk PRIMARY KEY (consensus_timestamp, entity_id)
);

create table public.contract_transaction_hash (
  consensus_timestamp bigint not null,
  hash bytea not null,
  payer_account_id bigint not null,
  entity_id bigint not null,
  transaction_result smallint not null
);

create table public.crypto_allowance (
  amount_granted bigint not null,
  owner bigint not null,
  payer_account_id bigint not null,
  spender bigint not null,
  timestamp_range int8range not null,
  amount bigint default 0 not null,
  constraint crypto_allowance_pkey PRIMARY KEY (owner, spender)
);

create table public.crypto_allowance_history (
  amount_granted bigint not null,
  owner bigint not null,
  payer_account_id bigint not null,
  spender bigint not null,
  timestamp_range int8range not null,
  amount bigint default 0 not null
);

create table public.crypto_transfer (
  entity_id entity_id not null,
  consensus_timestamp nanos_timestamp not null,
  amount hbar_tinybars not null,
  payer_account_id bigint not null,
  is_approval boolean,
  errata errata_type
);

create table public.custom_fee (
  fixed_fees jsonb,
  fractional_fees jsonb,
  royalty_fees jsonb,
  timestamp_range int8range not null,
  entity_id bigint not null,
  constraint custom_fee_pkey PRIMARY KEY (entity_id)
);

create table public.custom_fee_history (
  fixed_fees jsonb,
  fractional_fees jsonb,
  royalty_fees jsonb,
  timestamp_range int8range not null,
  entity_id bigint not null
);

create table public.entity (
  auto_renew_account_id bigint,
  auto_renew_period bigint,
  created_timestamp bigint,
  deleted boolean,
  expiration_timestamp bigint,
  id bigint not null,
  key bytea,
  memo text default ''::text not null,
  num bigint not null,
  public_key character varying,
  proxy_account_id bigint,
  realm bigint not null,
  shard bigint not null,
  receiver_sig_required boolean,
  max_automatic_token_associations integer,
  timestamp_range int8range not null,
  type entity_type default 'UNKNOWN'::entity_type not null,
  alias bytea,
  ethereum_nonce bigint default 0,
  evm_address bytea,
  decline_reward boolean default false not null,
  staked_account_id bigint,
  staked_node_id bigint default '-1'::integer,
  stake_period_start bigint default '-1'::integer,
  obtainer_id bigint,
  permanent_removal boolean,
  balance bigint,
  balance_timestamp bigint,
  constraint entity_pkey PRIMARY KEY (id)
);

create table public.entity_history (
  auto_renew_account_id bigint,
  auto_renew_period bigint,
  created_timestamp bigint,
  deleted boolean,
  expiration_timestamp bigint,
  id bigint not null,
  key bytea,
  memo text default ''::text not null,
  num bigint not null,
  public_key character varying,
  proxy_account_id bigint,
  realm bigint not null,
  shard bigint not null,
  receiver_sig_required boolean,
  max_automatic_token_associations integer,
  timestamp_range int8range not null,
  type entity_type default 'UNKNOWN'::entity_type not null,
  alias bytea,
  ethereum_nonce bigint default 0,
  evm_address bytea,
  decline_reward boolean default false not null,
  staked_account_id bigint,
  staked_node_id bigint default '-1'::integer,
  stake_period_start bigint default '-1'::integer,
  obtainer_id bigint,
  permanent_removal boolean,
  balance bigint,
  balance_timestamp bigint
);

create table public.entity_stake (
  end_stake_period bigint not null,
  id bigint not null,
  pending_reward bigint not null,
  staked_node_id_start bigint not null,
  staked_to_me bigint not null,
  stake_total_start bigint not null,
  timestamp_range int8range not null,
  constraint entity_stake_pkey PRIMARY KEY (id)
);

create table public.entity_stake_history (
  end_stake_period bigint not null,
  id bigint not null,
  pending_reward bigint not null,
  staked_node_id_start bigint not null,
  staked_to_me bigint not null,
  stake_total_start bigint not null,
  timestamp_range int8range not null
);

create table public.entity_transaction (
  consensus_timestamp bigint not null,
  entity_id bigint not null,
  payer_account_id bigint not null,
  result smallint not null,
  type smallint not null,
  constraint entity_transaction_pkey PRIMARY KEY (entity_id, consensus_timestamp)
);

create table public.ethereum_transaction (
  access_list bytea,
  call_data_id bigint,
  call_data bytea,
  chain_id bytea,
  consensus_timestamp bigint not null,
  data bytea not null,
  gas_limit bigint not null,
  gas_price bytea,
  hash bytea not null,
  max_fee_per_gas bytea,
  max_gas_allowance bigint not null,
  max_priority_fee_per_gas bytea,
  nonce bigint not null,
  payer_account_id bigint not null,
  recovery_id smallint,
  signature_r bytea not null,
  signature_s bytea not null,
  signature_v bytea,
  to_address bytea,
  type smallint not null,
  value bytea,
  constraint ethereum_transaction_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.file_data (
  file_data bytea,
  consensus_timestamp nanos_timestamp not null,
  entity_id entity_id not null,
  transaction_type smallint not null,
  constraint file_data_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.live_hash (
  livehash bytea,
  consensus_timestamp nanos_timestamp not null,
  constraint live_hash_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.network_freeze (
  consensus_timestamp bigint not null,
  end_time bigint,
  file_hash bytea not null,
  file_id bigint,
  payer_account_id bigint not null,
  start_time bigint not null,
  type smallint not null,
  constraint network_freeze_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.network_stake (
  consensus_timestamp bigint not null,
  epoch_day bigint not null,
  max_staking_reward_rate_per_hbar bigint not null,
  node_reward_fee_denominator bigint not null,
  node_reward_fee_numerator bigint not null,
  stake_total bigint not null,
  staking_period bigint not null,
  staking_period_duration bigint not null,
  staking_periods_stored bigint not null,
  staking_reward_fee_denominator bigint not null,
  staking_reward_fee_numerator bigint not null,
  staking_reward_rate bigint not null,
  staking_start_threshold bigint not null,
  max_stake_rewarded bigint default 0 not null,
  max_total_reward bigint default 0 not null,
  reserved_staking_rewards bigint default 0 not null,
  reward_balance_threshold bigint default 0 not null,
  unreserved_staking_reward_balance bigint default 0 not null,
  constraint network_stake_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.nft (
  account_id bigint,
  created_timestamp bigint,
  deleted boolean default false,
  metadata bytea,
  serial_number bigint not null,
  token_id bigint not null,
  delegating_spender bigint,
  spender bigint,
  timestamp_range int8range not null,
  constraint nft_pkey PRIMARY KEY (token_id, serial_number)
);

create table public.nft_allowance (
  approved_for_all boolean not null,
  owner bigint not null,
  payer_account_id bigint not null,
  spender bigint not null,
  timestamp_range int8range not null,
  token_id bigint not null,
  constraint nft_allowance_pkey PRIMARY KEY (owner, spender, token_id)
);

create table public.nft_allowance_history (
  approved_for_all boolean not null,
  owner bigint not null,
  payer_account_id bigint not null,
  spender bigint not null,
  timestamp_range int8range not null,
  token_id bigint not null
);

create table public.nft_history (
  account_id bigint,
  created_timestamp bigint,
  deleted boolean default false,
  metadata bytea,
  serial_number bigint not null,
  token_id bigint not null,
  delegating_spender bigint,
  spender bigint,
  timestamp_range int8range not null
);

create table public.node (
  admin_key bytea,
  created_timestamp bigint,
  deleted boolean default false not null,
  node_id bigint not null,
  timestamp_range int8range not null,
  decline_reward boolean default false not null,
  constraint node__pk PRIMARY KEY (node_id)
);

create table public.node_history (
  admin_key bytea,
  created_timestamp bigint,
  deleted boolean default false not null,
  node_id bigint not null,
  timestamp_range int8range not null,
  decline_reward boolean default false not null
);

create table public.node_stake (
  consensus_timestamp bigint not null,
  epoch_day bigint not null,
  node_id bigint not null,
  reward_rate bigint not null,
  stake bigint not null,
  stake_rewarded bigint not null,
  staking_period bigint not null,
  max_stake bigint not null,
  min_stake bigint not null,
  stake_not_rewarded bigint not null,
  constraint node_stake_pkey PRIMARY KEY (consensus_timestamp, node_id)
);

create table public.non_fee_transfer (
  entity_id entity_id,
  consensus_timestamp nanos_timestamp not null,
  amount hbar_tinybars not null,
  payer_account_id bigint not null,
  is_approval boolean
);

create table public.prng (
  consensus_timestamp bigint not null,
  range integer not null,
  prng_bytes bytea,
  prng_number integer,
  payer_account_id bigint not null,
  constraint prng_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.reconciliation_job (
  consensus_timestamp bigint not null,
  count bigint not null,
  error text default ''::text not null,
  timestamp_end timestamp with time zone,
  timestamp_start timestamp with time zone not null,
  status smallint not null,
  constraint reconciliation_job_pkey PRIMARY KEY (timestamp_start)
);

create table public.record_file (
  name character varying(250) not null,
  load_start bigint not null,
  load_end bigint not null,
  hash character varying(96) not null,
  prev_hash character varying(96) not null,
  consensus_start bigint not null,
  consensus_end bigint not null,
  count bigint not null,
  digest_algorithm integer not null,
  hapi_version_major integer,
  hapi_version_minor integer,
  hapi_version_patch integer,
  version integer not null,
  file_hash character varying(96) not null,
  bytes bytea,
  index bigint not null,
  gas_used bigint default '-1'::integer,
  logs_bloom bytea,
  size integer,
  sidecar_count integer default 0 not null,
  node_id bigint not null,
  software_version_major integer,
  software_version_minor integer,
  software_version_patch integer,
  round_start bigint,
  round_end bigint,
  constraint record_file_pkey PRIMARY KEY (consensus_end)
);

create table public.schedule (
  consensus_timestamp bigint not null,
  creator_account_id bigint not null,
  executed_timestamp bigint,
  payer_account_id bigint not null,
  schedule_id bigint not null,
  transaction_body bytea not null,
  expiration_time bigint,
  wait_for_expiry boolean default false not null,
  constraint schedule_pkey PRIMARY KEY (schedule_id)
);

create table public.sidecar_file (
  bytes bytea,
  count integer,
  consensus_end bigint not null,
  hash_algorithm integer not null,
  hash bytea not null,
  id integer not null,
  name character varying(250) not null,
  size integer,
  types integer[] not null,
  constraint sidecar_file_pkey PRIMARY KEY (consensus_end, id)
);

create table public.staking_reward_transfer (
  account_id bigint not null,
  amount bigint not null,
  consensus_timestamp bigint not null,
  payer_account_id bigint not null,
  constraint staking_reward_transfer_pkey PRIMARY KEY (consensus_timestamp, account_id)
);

create table public.token (
  token_id entity_id not null,
  created_timestamp bigint not null,
  decimals bigint not null,
  freeze_default boolean default false not null,
  freeze_key bytea,
  initial_supply bigint not null,
  kyc_key bytea,
  name character varying(100) not null,
  supply_key bytea,
  symbol character varying(100) not null,
  total_supply bigint default 0 not null,
  treasury_account_id entity_id not null,
  wipe_key bytea,
  max_supply bigint default '9223372036854775807'::bigint not null,
  supply_type token_supply_type default 'INFINITE'::token_supply_type not null,
  type token_type default 'FUNGIBLE_COMMON'::token_type not null,
  fee_schedule_key bytea,
  pause_key bytea,
  pause_status token_pause_status default 'NOT_APPLICABLE'::token_pause_status not null,
  timestamp_range int8range not null,
  freeze_status smallint not null,
  kyc_status smallint not null,
  metadata bytea,
  metadata_key bytea,
  constraint token_pkey PRIMARY KEY (token_id)
);

create table public.token_account (
  account_id bigint not null,
  associated boolean default false not null,
  automatic_association boolean,
  created_timestamp bigint,
  freeze_status smallint,
  kyc_status smallint,
  timestamp_range int8range not null,
  token_id bigint not null,
  balance bigint default 0 not null,
  balance_timestamp bigint,
  constraint token_account_pkey PRIMARY KEY (account_id, token_id)
);

create table public.token_account_history (
  account_id bigint not null,
  associated boolean default false not null,
  automatic_association boolean,
  created_timestamp bigint,
  freeze_status smallint,
  kyc_status smallint,
  timestamp_range int8range not null,
  token_id bigint not null,
  balance bigint default 0 not null,
  balance_timestamp bigint
);

create table public.token_airdrop (
  amount bigint,
  receiver_account_id bigint not null,
  sender_account_id bigint not null,
  serial_number bigint not null,
  state airdrop_state default 'PENDING'::airdrop_state not null,
  timestamp_range int8range not null,
  token_id bigint not null
);

create table public.token_airdrop_history (
  amount bigint,
  receiver_account_id bigint not null,
  sender_account_id bigint not null,
  serial_number bigint not null,
  state airdrop_state default 'PENDING'::airdrop_state not null,
  timestamp_range int8range not null,
  token_id bigint not null
);

create table public.token_allowance (
  amount_granted bigint not null,
  owner bigint not null,
  payer_account_id bigint not null,
  spender bigint not null,
  timestamp_range int8range not null,
  token_id bigint not null,
  amount bigint default 0 not null,
  constraint token_allowance_pkey PRIMARY KEY (owner, spender, token_id)
);

create table public.token_allowance_history (
  amount_granted bigint not null,
  owner bigint not null,
  payer_account_id bigint not null,
  spender bigint not null,
  timestamp_range int8range not null,
  token_id bigint not null,
  amount bigint default 0 not null
);

create table public.token_balance (
  consensus_timestamp bigint not null,
  account_id entity_id not null,
  balance bigint not null,
  token_id entity_id not null,
  constraint token_balance_pkey PRIMARY KEY (account_id, token_id, consensus_timestamp)
) partition by RANGE (consensus_timestamp);
create table public.token_balance_p1970_01 partition of public.token_balance FOR VALUES FROM ('0') TO ('315532800000000000');
create table public.token_balance_p1980_01 partition of public.token_balance FOR VALUES FROM ('315532800000000000') TO ('631152000000000000');
create table public.token_balance_p1990_01 partition of public.token_balance FOR VALUES FROM ('631152000000000000') TO ('946684800000000000');
create table public.token_balance_p2000_01 partition of public.token_balance FOR VALUES FROM ('946684800000000000') TO ('1262304000000000000');
create table public.token_balance_p2010_01 partition of public.token_balance FOR VALUES FROM ('1262304000000000000') TO ('1577836800000000000');
create table public.token_balance_p2020_01 partition of public.token_balance FOR VALUES FROM ('1577836800000000000') TO ('1893456000000000000');
create table public.token_balance_p2030_01 partition of public.token_balance FOR VALUES FROM ('1893456000000000000') TO ('2208988800000000000');

create table public.token_balance_old (
  consensus_timestamp bigint not null,
  account_id entity_id not null,
  balance bigint not null,
  token_id entity_id not null,
  constraint token_balance__pk PRIMARY KEY (consensus_timestamp, account_id, token_id)
);

create table public.token_history (
  token_id entity_id not null,
  created_timestamp bigint not null,
  decimals bigint not null,
  freeze_default boolean default false not null,
  freeze_key bytea,
  initial_supply bigint not null,
  kyc_key bytea,
  name character varying(100) not null,
  supply_key bytea,
  symbol character varying(100) not null,
  total_supply bigint default 0 not null,
  treasury_account_id entity_id not null,
  wipe_key bytea,
  max_supply bigint default '9223372036854775807'::bigint not null,
  supply_type token_supply_type default 'INFINITE'::token_supply_type not null,
  type token_type default 'FUNGIBLE_COMMON'::token_type not null,
  fee_schedule_key bytea,
  pause_key bytea,
  pause_status token_pause_status default 'NOT_APPLICABLE'::token_pause_status not null,
  timestamp_range int8range not null,
  freeze_status smallint not null,
  kyc_status smallint not null,
  metadata bytea,
  metadata_key bytea
);

create table public.token_transfer (
  token_id entity_id not null,
  account_id entity_id not null,
  consensus_timestamp bigint not null,
  amount hbar_tinybars not null,
  payer_account_id bigint not null,
  is_approval boolean
);

create table public.topic (
  admin_key bytea,
  created_timestamp bigint,
  id bigint not null,
  fee_exempt_key_list bytea,
  fee_schedule_key bytea,
  submit_key bytea,
  timestamp_range int8range not null,
  constraint topic_pkey PRIMARY KEY (id)
);

create table public.topic_history (
  admin_key bytea,
  created_timestamp bigint,
  id bigint not null,
  fee_exempt_key_list bytea,
  fee_schedule_key bytea,
  submit_key bytea,
  timestamp_range int8range not null
);

create table public.topic_message (
  consensus_timestamp nanos_timestamp not null,
  message bytea not null,
  running_hash bytea not null,
  sequence_number bigint not null,
  running_hash_version smallint,
  chunk_num integer,
  chunk_total integer,
  payer_account_id entity_id,
  valid_start_timestamp nanos_timestamp,
  topic_id bigint not null,
  initial_transaction_id bytea
);

create table public.topic_message_lookup (
  partition text not null,
  sequence_number_range int8range not null,
  timestamp_range int8range not null,
  topic_id bigint not null,
  constraint topic_message_lookup_pkey PRIMARY KEY (topic_id, partition)
);

create table public.transaction (
  consensus_timestamp bigint not null,
  type smallint not null,
  result smallint not null,
  payer_account_id entity_id not null,
  valid_start_ns bigint not null,
  valid_duration_seconds bigint,
  node_account_id entity_id,
  entity_id entity_id,
  initial_balance bigint default 0,
  max_fee hbar_tinybars,
  charged_tx_fee bigint,
  memo bytea,
  transaction_hash bytea,
  transaction_bytes bytea,
  scheduled boolean default false not null,
  nonce integer default 0 not null,
  parent_consensus_timestamp bigint,
  errata errata_type,
  index integer,
  nft_transfer jsonb,
  itemized_transfer jsonb,
  transaction_record_bytes bytea,
  max_custom_fees bytea[],
  batch_key bytea,
  inner_transactions bigint[],
  constraint transaction_pkey PRIMARY KEY (consensus_timestamp)
);

create table public.transaction_hash (
  consensus_timestamp bigint not null,
  hash bytea not null,
  payer_account_id bigint,
  distribution_id smallint
) partition by LIST (mod(get_byte(hash, 0), 32));
create table public.transaction_hash_00 partition of public.transaction_hash FOR VALUES IN (0);
create table public.transaction_hash_01 partition of public.transaction_hash FOR VALUES IN (1);
create table public.transaction_hash_02 partition of public.transaction_hash FOR VALUES IN (2);
create table public.transaction_hash_03 partition of public.transaction_hash FOR VALUES IN (3);
create table public.transaction_hash_04 partition of public.transaction_hash FOR VALUES IN (4);
create table public.transaction_hash_05 partition of public.transaction_hash FOR VALUES IN (5);
create table public.transaction_hash_06 partition of public.transaction_hash FOR VALUES IN (6);
create table public.transaction_hash_07 partition of public.transaction_hash FOR VALUES IN (7);
create table public.transaction_hash_08 partition of public.transaction_hash FOR VALUES IN (8);
create table public.transaction_hash_09 partition of public.transaction_hash FOR VALUES IN (9);
create table public.transaction_hash_10 partition of public.transaction_hash FOR VALUES IN (10);
create table public.transaction_hash_11 partition of public.transaction_hash FOR VALUES IN (11);
create table public.transaction_hash_12 partition of public.transaction_hash FOR VALUES IN (12);
create table public.transaction_hash_13 partition of public.transaction_hash FOR VALUES IN (13);
create table public.transaction_hash_14 partition of public.transaction_hash FOR VALUES IN (14);
create table public.transaction_hash_15 partition of public.transaction_hash FOR VALUES IN (15);
create table public.transaction_hash_16 partition of public.transaction_hash FOR VALUES IN (16);
create table public.transaction_hash_17 partition of public.transaction_hash FOR VALUES IN (17);
create table public.transaction_hash_18 partition of public.transaction_hash FOR VALUES IN (18);
create table public.transaction_hash_19 partition of public.transaction_hash FOR VALUES IN (19);
create table public.transaction_hash_20 partition of public.transaction_hash FOR VALUES IN (20);
create table public.transaction_hash_21 partition of public.transaction_hash FOR VALUES IN (21);
create table public.transaction_hash_22 partition of public.transaction_hash FOR VALUES IN (22);
create table public.transaction_hash_23 partition of public.transaction_hash FOR VALUES IN (23);
create table public.transaction_hash_24 partition of public.transaction_hash FOR VALUES IN (24);
create table public.transaction_hash_25 partition of public.transaction_hash FOR VALUES IN (25);
create table public.transaction_hash_26 partition of public.transaction_hash FOR VALUES IN (26);
create table public.transaction_hash_27 partition of public.transaction_hash FOR VALUES IN (27);
create table public.transaction_hash_28 partition of public.transaction_hash FOR VALUES IN (28);
create table public.transaction_hash_29 partition of public.transaction_hash FOR VALUES IN (29);
create table public.transaction_hash_30 partition of public.transaction_hash FOR VALUES IN (30);
create table public.transaction_hash_31 partition of public.transaction_hash FOR VALUES IN (31);

create table public.transaction_signature (
  consensus_timestamp bigint not null,
  public_key_prefix bytea not null,
  entity_id bigint,
  signature bytea not null,
  type smallint
);

CREATE INDEX account_balance_file__name ON public.account_balance_file USING btree (name);
CREATE INDEX address_book_entry__timestamp ON public.address_book_entry USING btree (consensus_timestamp);
CREATE INDEX address_book_service_endpoint__timestamp_node_id ON public.address_book_service_endpoint USING btree (consensus_timestamp, node_id);
CREATE INDEX assessed_custom_fee__consensus_timestamp ON public.assessed_custom_fee USING btree (consensus_timestamp);
CREATE INDEX contract_log__contract_id_timestamp_index ON public.contract_log USING btree (contract_id, consensus_timestamp DESC, index);
CREATE INDEX contract_result__id_sender_timestamp ON public.contract_result USING btree (contract_id, sender_id, consensus_timestamp);
CREATE INDEX contract_result__id_timestamp ON public.contract_result USING btree (contract_id, consensus_timestamp);
CREATE INDEX contract_result__sender_timestamp ON public.contract_result USING btree (sender_id, consensus_timestamp);
CREATE INDEX contract_state_change__id_slot_timestamp ON public.contract_state_change USING btree (contract_id, slot, consensus_timestamp);
CREATE INDEX contract_transaction_hash__hash ON public.contract_transaction_hash USING hash (hash);
CREATE INDEX crypto_allowance_history__timestamp_range ON public.crypto_allowance_history USING gist (timestamp_range);
CREATE INDEX crypto_allowance_history_owner_spender_lower_timestamp ON public.crypto_allowance_history USING btree (owner, spender, lower(timestamp_range));
CREATE INDEX crypto_transfer__consensus_timestamp ON public.crypto_transfer USING btree (consensus_timestamp);
CREATE INDEX crypto_transfer__entity_id_consensus_timestamp ON public.crypto_transfer USING btree (entity_id, consensus_timestamp) WHERE ((entity_id)::bigint <> 98);
CREATE INDEX custom_fee_history__timestamp_range ON public.custom_fee_history USING gist (timestamp_range);
CREATE INDEX custom_fee_history__token_id_timestamp_range ON public.custom_fee_history USING btree (entity_id, lower(timestamp_range));
CREATE INDEX entity__alias ON public.entity USING btree (alias) WHERE (alias IS NOT NULL);
CREATE INDEX entity__evm_address ON public.entity USING btree (evm_address) WHERE (evm_address IS NOT NULL);
CREATE INDEX entity__public_key_type ON public.entity USING btree (public_key, type) WHERE (public_key IS NOT NULL);
CREATE INDEX entity__type_id ON public.entity USING btree (type, id);
CREATE INDEX entity_history__alias ON public.entity_history USING btree (alias) WHERE (alias IS NOT NULL);
CREATE INDEX entity_history__evm_address ON public.entity_history USING btree (evm_address) WHERE (evm_address IS NOT NULL);
CREATE INDEX entity_history__id_lower_timestamp ON public.entity_history USING btree (id, lower(timestamp_range));
CREATE INDEX entity_history__timestamp_range ON public.entity_history USING gist (timestamp_range);
CREATE INDEX entity_stake_history__id_lower_timestamp ON public.entity_stake_history USING btree (id, lower(timestamp_range));
CREATE INDEX entity_stake_history__timestamp_range ON public.entity_stake_history USING gist (timestamp_range);
CREATE INDEX file_data__id_timestamp ON public.file_data USING btree (entity_id, consensus_timestamp);
CREATE INDEX nft__account_token_serialnumber ON public.nft USING btree (account_id, token_id, serial_number);
CREATE INDEX nft__allowance ON public.nft USING btree (account_id, spender, token_id, serial_number) WHERE ((account_id IS NOT NULL) AND (spender IS NOT NULL));
CREATE INDEX nft_allowance__spender_owner_token ON public.nft_allowance USING btree (spender, owner, token_id);
CREATE INDEX nft_allowance_history__owner_spender_token_lower_timestamp ON public.nft_allowance_history USING btree (owner, spender, token_id, lower(timestamp_range));
CREATE INDEX nft_allowance_history__timestamp_range ON public.nft_allowance_history USING gist (timestamp_range);
CREATE INDEX nft_history__account_timestamp_range ON public.nft_history USING gist (account_id, timestamp_range);
CREATE INDEX nft_history__token_serial_lower_timestamp ON public.nft_history USING btree (token_id, serial_number, lower(timestamp_range));
CREATE INDEX node_history__node_id_lower_timestamp ON public.node_history USING btree (node_id, lower(timestamp_range));
CREATE INDEX node_stake__epoch_day ON public.node_stake USING btree (epoch_day);
CREATE INDEX non_fee_transfer__consensus_timestamp ON public.non_fee_transfer USING btree (consensus_timestamp);
CREATE INDEX record_file__hash ON public.record_file USING btree (hash COLLATE "C");
CREATE INDEX record_file__index ON public.record_file USING btree (index);
CREATE INDEX schedule__creator_account_id ON public.schedule USING btree (creator_account_id DESC);
CREATE INDEX staking_reward_transfer__account_timestamp ON public.staking_reward_transfer USING btree (account_id, consensus_timestamp);
CREATE INDEX token__name ON public.token USING gin (name gin_trgm_ops);
CREATE INDEX token_account_history__account_token_lower_timestamp ON public.token_account_history USING btree (account_id, token_id, lower(timestamp_range));
CREATE INDEX token_account_history__timestamp_range ON public.token_account_history USING gist (timestamp_range);
CREATE INDEX token_airdrop__receiver_id ON public.token_airdrop USING btree (receiver_account_id, sender_account_id, token_id, serial_number);
CREATE UNIQUE INDEX token_airdrop__sender_id ON public.token_airdrop USING btree (sender_account_id, receiver_account_id, token_id, serial_number);
CREATE INDEX token_airdrop_history__timestamp_range ON public.token_airdrop_history USING gist (timestamp_range);
CREATE INDEX token_allowance_history__owner_spender_token_lower_timestamp ON public.token_allowance_history USING btree (owner, spender, token_id, lower(timestamp_range));
CREATE INDEX token_allowance_history__timestamp_range ON public.token_allowance_history USING gist (timestamp_range);
CREATE INDEX token_balance__token_account_timestamp ON public.token_balance USING btree (token_id, account_id, consensus_timestamp);
CREATE INDEX token_history__timestamp_range ON public.token_history USING gist (timestamp_range);
CREATE INDEX token_history__token_id_timestamp_range ON public.token_history USING btree (token_id, lower(timestamp_range));
CREATE INDEX token_transfer__account_timestamp ON public.token_transfer USING btree (account_id, consensus_timestamp DESC);
CREATE INDEX token_transfer__token_account_timestamp ON public.token_transfer USING btree (consensus_timestamp DESC, token_id DESC, account_id DESC);
CREATE INDEX topic_history__id_lower_timestamp_range ON public.topic_history USING btree (id, lower(timestamp_range));
CREATE INDEX topic_history__timestamp_range ON public.topic_history USING gist (timestamp_range);
CREATE UNIQUE INDEX topic_message__topic_id_seqnum ON public.topic_message USING btree (topic_id, sequence_number);
CREATE INDEX topic_message__topic_id_timestamp ON public.topic_message USING btree (topic_id, consensus_timestamp);
CREATE INDEX transaction__payer_account_id_consensus_ns ON public.transaction USING btree (payer_account_id, consensus_timestamp);
CREATE INDEX transaction__transaction_id ON public.transaction USING btree (valid_start_ns, payer_account_id);
CREATE INDEX transaction__type_consensus_timestamp ON public.transaction USING btree (type, consensus_timestamp);
CREATE INDEX transaction_hash__hash ON public.transaction_hash USING hash (SUBSTRING(hash FROM 1 FOR 32));
CREATE INDEX transaction_signature__entity_id ON public.transaction_signature USING btree (entity_id DESC);
CREATE INDEX transaction_signature__timestamp_public_key_prefix ON public.transaction_signature USING btree (consensus_timestamp DESC, public_key_prefix);
