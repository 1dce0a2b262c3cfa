-- The recommended topic index (src/db/recommended/indexes.sql), for databases this service owns.
create index if not exists contract_log__topic0_timestamp on contract_log (topic0, consensus_timestamp);
