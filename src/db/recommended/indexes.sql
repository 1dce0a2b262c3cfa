-- Indexes this service recommends on top of the mirror node schema. They are not part of the
-- importer's schema: migration 0002 creates them in databases this service owns, and
-- `migrate --recommended-indexes` adds them (concurrently) to a database an importer owns.
-- One statement per line.

-- Top-level results of a contract (GET /contracts/{id}/results without internal=true): without it,
-- a contract with many child results and no top-level ones (the HTS system contract 0.0.359) makes
-- every default request walk all of its child rows.
create index if not exists contract_result__id_timestamp_top_level on contract_result (contract_id, consensus_timestamp) where transaction_nonce = 0;

-- Logs by first topic in time order (GET /contracts/results/logs?topic0=...&timestamp=..., the relay's
-- eth_getLogs without an address): without it, a topic that is rare or absent in the range makes the
-- search read every log of the range (1.4 s for 7 days of the scale-30 bench dataset).
create index if not exists contract_log__topic0_timestamp on contract_log (topic0, consensus_timestamp);
