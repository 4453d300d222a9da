import { hostname } from "node:os";

// `newLeaseOwner`'s shape: `host:pid:random` (a host name holds no colon).
const OWNER = /^([^:]+):(\d+):[0-9a-f]+$/;

/**
 * True when a lease's owner is a process of this host that no longer exists (killed with `kill -9`, crashed):
 * its lease can be taken over at once instead of after it lapses. Only a process on this host can be asked, so
 * an owner on another host, an owner id of another shape, or a pid that exists (also one owned by another user,
 * `EPERM`, or reused since) is never dead here: those leases still lapse on their own.
 */
export function isDeadLocalOwner(owner: string, host = hostname()): boolean {
  const match = OWNER.exec(owner);
  if (!match || match[1] !== host) return false;
  const pid = Number(match[2]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    // Signal 0 checks that the process exists without signalling it.
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
