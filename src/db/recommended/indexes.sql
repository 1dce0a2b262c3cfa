-- Indexes this service recommends on top of the mirror node schema. They are not part of the
-- importer's schema: this service's migrations (0002-0004) create them in databases it owns, and
-- `migrate --recommended-indexes` adds them (concurrently) to a database an importer owns.
-- Sizes on the scale-30 bench dataset (8.5M logs, 3M results): docs/operations.md "Recommended indexes".
-- One statement per line.

-- Top-level results of a contract (GET /contracts/{id}/results without internal=true): without it,
-- a contract with many child results and no top-level ones (the HTS system contract 0.0.359) makes
-- every default request walk all of its child rows. 86 MB.
create index if not exists contract_result__id_timestamp_top_level on contract_result (contract_id, consensus_timestamp) where transaction_nonce = 0;

-- Logs by topic in time order (GET /contracts/results/logs and /contracts/{id}/results/logs with
-- topic filters: eth_getLogs). Without them a topic that is rare or absent in the range makes the
-- search read every log of the range (0.6-1.4 s for 7 days network-wide, 0.25-0.35 s for the busiest
-- contract). A search is planned for its values (src/contracts/logs/query.ts): a common topic walks
-- the time order and stops after a page, a rare one is read from its topic's index. topic0 (the event
-- signature) comes second in the indexes of the other topics, so that a signature with an indexed
-- argument is one range in time order even when both are common and never occur together (an
-- account that only ever approves, searched among transfers: 155 ms on an index of topic1 alone, 0.5
-- ms here). Topics 1-3 are NULL in many logs, which the partial indexes leave out.
-- 405 MB, 447 MB, 356 MB, 34 MB.
create index if not exists contract_log__topic0_timestamp on contract_log (topic0, consensus_timestamp);
create index if not exists contract_log__topic1_topic0_timestamp on contract_log (topic1, topic0, consensus_timestamp) where topic1 is not null;
create index if not exists contract_log__topic2_topic0_timestamp on contract_log (topic2, topic0, consensus_timestamp) where topic2 is not null;
create index if not exists contract_log__topic3_topic0_timestamp on contract_log (topic3, topic0, consensus_timestamp) where topic3 is not null;

-- One contract's logs by event signature in time order (eth_getLogs with an address and topic0):
-- an event the contract rarely or never emits is found at once instead of by walking every log of
-- the contract in the range. 515 MB.
create index if not exists contract_log__contract_id_topic0_timestamp on contract_log (contract_id, topic0, consensus_timestamp);
