import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  rssKb: number;
  hwmKb: number;
  threads: number;
}

/** VmRSS / VmHWM (kB) and thread count of a process, from /proc. */
export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM'), threads: field('Threads') };
}

interface Region {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  kb: number;
}

/**
 * Where a process's resident memory is, from /proc/PID/smaps: the main malloc heap, glibc thread
 * arenas (64 MiB-aligned anonymous regions), WebAssembly memories (accessible pages followed by a
 * guard reservation of 1 GiB or more), other anonymous memory (V8 heaps, code, stacks) and file
 * mappings. In MiB.
 */
export function memoryMap(pid: number): string {
  const regions: Region[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      regions.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3] ?? '',
        name: head[4] ?? '',
        kb: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    const last = regions.at(-1);
    if (rss && last) last.kb += Number(rss[1]);
  }
  const sums = { brk: 0, arenas: 0, wasm: 0, anon: 0, files: 0 };
  for (const [i, r] of regions.entries()) {
    const next = regions[i + 1];
    // A WebAssembly memory is its accessible pages followed by a guard reservation of GiBs.
    const guarded =
      next !== undefined &&
      next.start === r.end &&
      next.perms === '---p' &&
      next.end - next.start >= 1n << 30n;
    const kind: keyof typeof sums =
      r.name === '[heap]'
        ? 'brk'
        : r.name.startsWith('/')
          ? 'files'
          : r.name !== ''
            ? 'anon'
            : guarded
              ? 'wasm'
              : r.start % (64n << 20n) === 0n && r.end - r.start <= 64n << 20n
                ? 'arenas'
                : 'anon';
    sums[kind] += r.kb;
  }
  return Object.entries(sums)
    .map(([name, kb]) => `${name} ${(kb / 1024).toFixed(0)}`)
    .join(', ');
}

export const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MiB`;
