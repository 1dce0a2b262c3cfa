-- The service's recommended indexes (src/db/recommended/indexes.sql), for databases it owns.
create index if not exists contract_result__id_timestamp_top_level on contract_result (contract_id, consensus_timestamp) where transaction_nonce = 0;
