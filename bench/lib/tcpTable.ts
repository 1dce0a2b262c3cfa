/**
 * The host's TCP sockets as the kernel lists them in /proc/net/tcp and /proc/net/tcp6 (Linux only):
 * both ends of every loopback connection, its state, the bytes queued on each side, and whether a
 * process still holds it (an inode of 0: the process closed it and the kernel finishes the close on
 * its own). bench/scenarios/hostile.ts watches its clients' connections with it without reading from them;
 * the listener's inode also names the process that serves a port.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { endianness } from 'node:os';

/** The kernel's TCP states (include/net/tcp_states.h), by their number in /proc/net/tcp. */
export const TCP_STATES: Record<number, string> = {
  1: 'ESTABLISHED',
  2: 'SYN_SENT',
  3: 'SYN_RECV',
  4: 'FIN_WAIT1',
  5: 'FIN_WAIT2',
  6: 'TIME_WAIT',
  7: 'CLOSE',
  8: 'CLOSE_WAIT',
  9: 'LAST_ACK',
  10: 'LISTEN',
  11: 'CLOSING',
  12: 'NEW_SYN_RECV',
};

export interface TcpSocket {
  /** `a.b.c.d:port`, or `[v6]:port`; IPv4-mapped IPv6 addresses are written as IPv4. */
  local: string;
  remote: string;
  state: string;
  /** Bytes sent and not acknowledged yet (unsent ones included): the send queue. */
  txQueue: number;
  /** Bytes received and not read by the process yet: the receive queue. */
  rxQueue: number;
  /** 0 when no process holds the socket any more (closed, the kernel finishing the close). */
  inode: number;
}

/** The bytes of one 32-bit word of the table, most significant first (the table prints them in host order). */
function wordBytes(hex: string, littleEndian: boolean): number[] {
  const bytes = [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return littleEndian ? bytes.reverse() : bytes;
}

/** `0100007F:1F90` (IPv4) or 32 hex digits and a port (IPv6) as `127.0.0.1:8080` or `[::1]:8080`. */
export function decodeAddress(field: string, littleEndian = endianness() === 'LE'): string {
  const [hex = '', portHex = ''] = field.split(':');
  const port = parseInt(portHex, 16);
  if (hex.length === 8) return `${wordBytes(hex, littleEndian).join('.')}:${port}`;
  const bytes = [0, 8, 16, 24].flatMap((i) => wordBytes(hex.slice(i, i + 8), littleEndian));
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `${bytes.slice(12).join('.')}:${port}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  // the longest run of zero groups (two or more) as `::`
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const text = best < 0 ? groups.join(':') : `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`;
  return `[${text}]:${port}`;
}

/** The sockets of a /proc/net/tcp or /proc/net/tcp6 text (its header line is skipped). */
export function parseTcpTable(text: string, littleEndian = endianness() === 'LE'): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !/^\d+:$/.test(f[0]!)) continue;
    const [tx = '0', rx = '0'] = f[4]!.split(':');
    const state = parseInt(f[3]!, 16);
    sockets.push({
      local: decodeAddress(f[1]!, littleEndian),
      remote: decodeAddress(f[2]!, littleEndian),
      state: TCP_STATES[state] ?? `state ${state}`,
      txQueue: parseInt(tx, 16),
      rxQueue: parseInt(rx, 16),
      inode: Number(f[9]),
    });
  }
  return sockets;
}

/** Every TCP socket of the host (IPv4 and IPv6). */
export function readTcpTable(): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      sockets.push(...parseTcpTable(readFileSync(file, 'utf8')));
    } catch {
      /* no IPv6 */
    }
  }
  return sockets;
}

/**
 * The process that listens on `port` (any address): the holder of the listening socket's inode.
 * Where several do (a cluster's primary and workers), the one whose parent is not among them.
 * Undefined when none is found (another user's process, without the rights to read its fds).
 */
export function listenerPid(port: number): number | undefined {
  const inodes = new Set(readTcpTable().filter((s) => s.state === 'LISTEN' && s.local.endsWith(`:${port}`)).map((s) => `socket:[${s.inode}]`));
  if (inodes.size === 0) return undefined;
  const holders: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) {
          holders.push(pid);
          break;
        }
      } catch {
        /* closed meanwhile */
      }
    }
  }
  const parentOf = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return 0;
    }
  };
  return holders.find((pid) => !holders.includes(parentOf(pid))) ?? holders[0];
}
