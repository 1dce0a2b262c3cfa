/** Items of GET /api/v1/contracts: the contract object without bytecodes (contracts-siblings.md 2.3). */
export { type ContractSummary, contractSummary as contractItem } from '../contract/view.ts';
