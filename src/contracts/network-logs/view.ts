/** Items of GET /api/v1/contracts/results/logs: the per-contract log item (contracts-api.md 6.6). */
export { logView } from '../logs/view.ts';
