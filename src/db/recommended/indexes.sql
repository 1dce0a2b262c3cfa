-- Indexes this service recommends on top of the mirror node schema. They are not part of the
-- importer's schema: migration 0002 creates them in databases this service owns, and
-- `migrate --recommended-indexes` adds them (concurrently) to a database an importer owns.
-- One statement per line.

-- Top-level results of a contract (GET /contracts/{id}/results without internal=true): without it,
-- a contract with many child results and no top-level ones (the HTS system contract 0.0.359) makes
-- every default request walk all of its child rows.
create index if not exists contract_result__id_timestamp_top_level on contract_result (contract_id, consensus_timestamp) where transaction_nonce = 0;
