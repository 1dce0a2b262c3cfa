-- The recommended indexes on the other topic columns and on a contract's event signatures
-- (src/db/recommended/indexes.sql), for databases this service owns.
create index if not exists contract_log__topic1_topic0_timestamp on contract_log (topic1, topic0, consensus_timestamp) where topic1 is not null;
create index if not exists contract_log__topic2_topic0_timestamp on contract_log (topic2, topic0, consensus_timestamp) where topic2 is not null;
create index if not exists contract_log__topic3_topic0_timestamp on contract_log (topic3, topic0, consensus_timestamp) where topic3 is not null;
create index if not exists contract_log__contract_id_topic0_timestamp on contract_log (contract_id, topic0, consensus_timestamp);
