/** cluster-key-slot (the slot function ioredis itself uses) ships no types: its one function. */
declare module 'cluster-key-slot' {
  /** The hash slot, 0 to 16383, Redis Cluster files `key` under. */
  export default function calculateSlot(key: string): number;
}
