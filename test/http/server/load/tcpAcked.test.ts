import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fullAddress, parseTxQueues, procAddress } from '../../../../src/http/server/load/tcpAcked.ts';

test('tcpAcked: /proc addresses and peer addresses name a connection alike (IPv4, IPv4-mapped, IPv6)', () => {
  assert.equal(procAddress('0100007F'), '127.0.0.1');
  assert.equal(procAddress('0000000000000000FFFF00000200007F'), '127.0.0.2', 'IPv4-mapped in tcp6');
  assert.equal(procAddress('00000000000000000000000001000000'), '0:0:0:0:0:0:0:1');
  assert.equal(procAddress('B80D0120000000000000000001000000'), '2001:db8:0:0:0:0:0:1');
  assert.equal(fullAddress('::1'), '0:0:0:0:0:0:0:1');
  assert.equal(fullAddress('2001:db8::1'), '2001:db8:0:0:0:0:0:1');
  assert.equal(fullAddress('::ffff:127.0.0.2'), '127.0.0.2');
  assert.equal(fullAddress('10.1.2.3'), '10.1.2.3');
});

test('tcpAcked: tx_queue by local port, peer address and port, from the text of /proc/net/tcp', () => {
  const text = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:15AF 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0',
    '   1: 0100007F:15AF 0200007F:C350 01 0039E000:00000000 01:00000014 00000000     0        0 2 1 0 20 4 30 10 -1',
  ].join('\n');
  const queues = new Map<string, number>();
  parseTxQueues(text, queues);
  assert.equal(queues.get('5551|127.0.0.2|50000'), 0x39e000);
  assert.equal(queues.get('5551|0.0.0.0|0'), 0, 'the listener, harmless');
  assert.equal(queues.size, 2, 'the header line is no connection');
});
