import { actionTables, callTraces } from './actions.ts';
import { activity } from './activity.ts';
import { deployments } from './deployments.ts';
import { entities } from './entities.ts';
import { ACTIVITY_START_MINUTE, MINUTES, type DemoSize } from './network.ts';
import { finish, flush, involvedEntities } from './records.ts';
import { helpers } from './sql.ts';
import { currentState, stateChanges, storageTables } from './storage.ts';
import { workingTables } from './tables.ts';

export { accountEvmAddress } from './sql.ts';

/**
 * The demo network as SQL. Every statement is plain SQL run inside the caller's transaction:
 * pseudo-randomness comes from hashint8extended()/sha256() of row keys and SEED (never random()),
 * and only exact arithmetic is used on floats (no exp/ln/sin, whose last bits differ between C
 * libraries), so a given scale yields the same rows on PostgreSQL and on PGlite.
 *
 * Working tables are temporary (pg_temp) and vanish with the session; the tables written are
 * listed in WRITTEN_TABLES.
 *
 * The statements come from one file per job: sql.ts (literals and the pg_temp helper functions),
 * tables.ts (the working tables), entities.ts (accounts, contracts, bytecode files),
 * deployments.ts (the hour-0 deployments), activity.ts (the calls and their logs), records.ts
 * (what each batch of calls becomes: results, transactions, hashes, involved entities, blocks; and
 * the last rows), actions.ts (the call traces) and storage.ts (storage changes and current state).
 */

/** Mirror node tables the generator fills (and truncates first). */
export const WRITTEN_TABLES = [
  'entity',
  'entity_history',
  'contract',
  'file_data',
  'record_file',
  'contract_result',
  'contract_log',
  'transaction',
  'ethereum_transaction',
  'contract_transaction_hash',
  'contract_transaction',
  'transaction_hash',
  'contract_action',
  'contract_state_change',
  'contract_state',
  'address_book',
] as const;

export interface Step {
  /** Shown by the progress bar. */
  label: string;
  statements: string[];
  /** Relative amount of work (for the progress bar). */
  weight: number;
}

/** The whole generation as steps; batches of activity hold about 10,000 transactions each. */
export function generationSteps(size: DemoSize): Step[] {
  const activeMinutes = MINUTES - ACTIVITY_START_MINUTE;
  const perMinute = size.transactions / activeMinutes;
  const minutesPerBatch = Math.min(activeMinutes, Math.max(60, Math.floor(10_000 / perMinute / 60) * 60));
  // what a batch of d_tx becomes; the involved entities come last (they list the contracts that logged or changed storage)
  const batch = () => [...flush(), ...callTraces(size), ...stateChanges(), ...involvedEntities()];
  const setup = [...helpers(size.seed), ...workingTables(size), ...actionTables(), ...storageTables(size.seed), ...entities()];
  const steps: Step[] = [
    { label: 'accounts and contracts', statements: setup, weight: 1 + size.coldContracts / 2000 },
    { label: 'deployments', statements: [...deployments(), ...batch()], weight: 0.2 },
  ];
  for (let m = ACTIVITY_START_MINUTE; m < MINUTES; m += minutesPerBatch) {
    const end = Math.min(MINUTES, m + minutesPerBatch);
    const day = Math.floor(m / 1440) + 1;
    steps.push({ label: `day ${day} ${String(Math.floor((m % 1440) / 60)).padStart(2, '0')}:00`, statements: [...activity(size, m, end), ...batch()], weight: ((end - m) * perMinute) / 4000 });
  }
  steps.push({ label: 'finishing', statements: [...finish(), ...currentState()], weight: 0.2 });
  return steps;
}
