/**
 * How many bytes of a connection its client has taken: acknowledged by the client's TCP, so in its
 * receive buffer or read. A socket shows only what the kernel has not taken from the process, and
 * the kernel, once its send buffer is full (on loopback it starts at megabytes), takes more only
 * after a third of it has gone: a client that reads steadily but slowly shows no progress there
 * for minutes. Linux tells the rest in /proc/net/tcp and tcp6: `tx_queue`, the bytes sent and not
 * yet acknowledged (or not yet sent), per connection. Then
 *
 *   taken = bytes handed to libuv - bytes libuv still queues - tx_queue
 *
 * (`_bytesDispatched` and the handle's `writeQueueSize`: Node's own counters behind `bytesWritten`,
 * the same on Node 20, 22 and 24; `writableLength` counts a chunk whole until its last byte is in
 * the kernel, so it cannot serve). Elsewhere, or when /proc cannot be read, nothing is known
 * (undefined) and the stall watch judges by the socket alone.
 */
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';

/** Of one connection: the bytes its client has taken so far, and those the kernel holds for it not yet taken. */
export interface Acked {
  taken: number;
  unacked: number;
}

/** What each of `sockets`' clients has taken (a socket not found is left out), or undefined: not known here. */
export type AckedReader = (sockets: readonly Socket[]) => Promise<Map<Socket, Acked> | undefined>;

const FILES = ['/proc/net/tcp', '/proc/net/tcp6'];

/** `a.b.c.d` from /proc's 8 hex digits, the address as the host stores it (little-endian words). */
function v4(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return `${n & 0xff}.${(n >>> 8) & 0xff}.${(n >>> 16) & 0xff}.${n >>> 24}`;
}

/** An address of /proc (8 or 32 hex digits) as the peer address text of clientAddress.ts: IPv4-mapped as IPv4, IPv6 as 8 full groups. */
export function procAddress(hex: string): string {
  if (hex.length === 8) return v4(hex);
  const words = [0, 8, 16, 24].map((i) => hex.slice(i, i + 8).match(/../g)!.reverse().join(''));
  const all = words.join('').toLowerCase();
  if (all.startsWith('00000000000000000000ffff')) return v4(hex.slice(24));
  return all.match(/..../g)!.map((g) => g.replace(/^0{1,3}/, '')).join(':');
}

/** An IPv6 address's text as 8 full groups without leading zeros (`::1` as `0:0:0:0:0:0:0:1`); IPv4 as it is. */
export function fullAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head, tail] = address.toLowerCase().split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':');
}

/** The key of a connection in /proc's tables: the local port, the peer's address and port. */
const key = (localPort: number, address: string, port: number) => `${localPort}|${address}|${port}`;

/** tx_queue by connection key, from the text of /proc/net/tcp or tcp6. */
export function parseTxQueues(text: string, into: Map<string, number>): void {
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const remote = fields[2];
    const queues = fields[4];
    if (local === undefined || remote === undefined || queues === undefined || !queues.includes(':')) continue;
    const [, localPort] = local.split(':');
    const [remoteAddress, remotePort] = remote.split(':');
    if (localPort === undefined || remoteAddress === undefined || remotePort === undefined) continue;
    const tx = Number.parseInt(queues.split(':')[0]!, 16);
    if (!Number.isFinite(tx)) continue;
    into.set(key(Number.parseInt(localPort, 16), procAddress(remoteAddress), Number.parseInt(remotePort, 16)), tx);
  }
}

interface Internals {
  _bytesDispatched?: number;
  _handle?: { writeQueueSize?: number } | null;
}

let unreadable = process.platform !== 'linux';

/** The reader of /proc/net/tcp and tcp6 (one read of each per call, whatever the number of sockets). */
export const procAcked: AckedReader = async (sockets) => {
  if (unreadable || sockets.length === 0) return undefined;
  const queues = new Map<string, number>();
  try {
    for (const text of await Promise.all(FILES.map((file) => readFile(file, 'latin1').catch(() => '')))) parseTxQueues(text, queues);
  } catch {
    unreadable = true;
    return undefined;
  }
  if (queues.size === 0) {
    unreadable = true;
    return undefined;
  }
  const taken = new Map<Socket, Acked>();
  for (const socket of sockets) {
    const { _bytesDispatched: dispatched, _handle: handle } = socket as unknown as Internals;
    const queued = handle?.writeQueueSize;
    if (typeof dispatched !== 'number' || typeof queued !== 'number' || socket.localPort === undefined || socket.remotePort === undefined) continue;
    const tx = queues.get(key(socket.localPort, fullAddress(socket.remoteAddress ?? ''), socket.remotePort));
    if (tx !== undefined) taken.set(socket, { taken: dispatched - queued - tx, unacked: tx });
  }
  return taken;
};
