/**
 * The child process of bench/scenarios/hostile.ts that holds the hostile clients (bench/lib/hostileClient.ts)
 * and looks at their connections in the kernel's TCP table, away from the event loop of the mix's
 * load client. Started by `HostileProcess.start` with its config (JSON) as its one argument; talks
 * to the parent by IPC (`ToWorker`, `FromWorker`); ends when told to close or when the parent goes.
 */
import { Attacks } from './attackClients.ts';
import { attacking } from './attacks.ts';
import { hostileSpecs } from './hostile.ts';
import { type FromWorker, HostileClients, type HostileWorkerConfig, type ToWorker } from './hostileClient.ts';

if (!process.send) throw new Error('bench/lib/hostileWorker.ts runs as a child process of bench/scenarios/hostile.ts (IPC)');
const config = JSON.parse(process.argv[2]!) as HostileWorkerConfig;
const clients = new HostileClients(hostileSpecs(config.targets, config), config.host, config.port, config.hostHeader);
const attacks = attacking(config.attacks) ? new Attacks(config.attacks!, config.host, config.port, config.hostHeader) : undefined;
const send = (m: FromWorker) => process.send!(m);

/** Each connection as last sent: only the changed ones go again. */
const sent = new Map<number, string>();
function flush(): void {
  const changed = clients.tracks.filter((t) => {
    const text = JSON.stringify(t);
    if (sent.get(t.id) === text) return false;
    sent.set(t.id, text);
    return true;
  });
  if (changed.length) send({ type: 'tracks', tracks: changed });
}

process.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'open': {
      // a connection the server's backlog does not take yet keeps trying; the looks go on meanwhile
      const opening = Promise.all([clients.open(), attacks?.open()]);
      clients.watch(config.probeMs, flush);
      void opening.then(() => {
        flush();
        send({ type: 'opened' });
      });
      break;
    }
    case 'look': {
      const at = performance.now();
      clients.look(at);
      flush();
      send({ type: 'looked', at });
      break;
    }
    case 'report':
      send({ type: 'report', report: attacks?.report() });
      break;
    case 'close':
      attacks?.close();
      clients.close();
      process.disconnect();
      break;
  }
});
// the parent went (or closed the channel): the sockets go with this process
process.on('disconnect', () => {
  attacks?.close();
  clients.close();
  process.exit(0);
});
send({ type: 'ready', timeOrigin: performance.timeOrigin });
