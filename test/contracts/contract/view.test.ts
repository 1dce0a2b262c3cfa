import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContractRow } from '../../../src/contracts/contract/query.ts';
import { contractJson, contractView, fileBytecodeText } from '../../../src/contracts/contract/view.ts';
import { toJson } from '../../../src/format/json.ts';

const ROW: ContractRow = {
  auto_renew_account_id: null,
  auto_renew_period: '7776000',
  created_timestamp: '1746057600000000001',
  deleted: false,
  evm_address: null,
  expiration_timestamp: null,
  id: '1001',
  key: `1220${'ab'.repeat(32)}`,
  max_automatic_token_associations: 0,
  memo: 'a "memo" with \\ and \u0001 and ü',
  ethereum_nonce: '9223372036854775807',
  obtainer_id: null,
  permanent_removal: null,
  proxy_account_id: null,
  timestamp_from: '1746057600000000001',
  timestamp_to: null,
  file_id: null,
  runtime_bytecode: '6080604052',
  bytecode_from_file: false,
  file_bytecode: null,
  initcode: '60806040',
};

test('contractJson is exactly toJson of the view, with hex and with file-text bytecode', () => {
  const hexView = contractView(ROW, '0x60806040');
  assert.equal(contractJson(hexView, true).text, toJson(hexView));
  const text = fileBytecodeText(Buffer.from('60806040"\\\n\u2028', 'utf8').toString('hex'));
  const fileView = contractView({ ...ROW, bytecode_from_file: true, file_bytecode: null }, text);
  assert.equal(contractJson(fileView, false).text, toJson(fileView));
  assert.ok(contractJson(fileView, false).text.endsWith(`"bytecode":"0x60806040\\"\\\\\\n\u2028","runtime_bytecode":"0x6080604052"}`));
  // the bytecodes are the last keys, as in the reference
  assert.deepEqual(Object.keys(JSON.parse(contractJson(hexView, true).text)).slice(-3), ['timestamp', 'bytecode', 'runtime_bytecode']);
});
