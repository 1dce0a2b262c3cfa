/**
 * The health probes and the metrics: answered whatever the load (admission never sheds them, and
 * they may use the reserved connections beyond the caps, connectionCap.ts).
 */
import type { IncomingMessage } from 'node:http';
import { targetPath } from '../../request/target.ts';

/** Their paths as the router matches them: any case, a trailing slash. */
const OPERATIONAL = /^\/(?:health\/(?:liveness|readiness)|metrics|swagger\/metrics)\/?$/i;

/** True for a path (as routed) of a probe or the metrics. */
export const isOperationalPath = (path: string): boolean => OPERATIONAL.test(path);

/** True for a request of a probe or the metrics (the path of a target in absolute form too). */
export const isOperational = (request: IncomingMessage): boolean => OPERATIONAL.test(targetPath(request.url ?? '') ?? '');
