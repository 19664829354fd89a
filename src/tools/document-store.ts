import type { LiftedDocument } from '../lifted-document.js';

/*
 * What the tools need from wherever held texts are kept (docs/adr/0039): the process's own memory
 * (held-documents.ts), or that memory in front of a store every process shares
 * (shared-store/shared-documents.ts, docs/adr/0041). Nothing in server.ts or document-handles.ts
 * knows which.
 */

/** A text just held, and whether this call is the one that made its handle. */
export interface HeldText {
  handle: string;
  bytes: Uint8Array;
  fresh: boolean;
  /**
   * A shared store's copy being written: settles (never rejects) once other processes can read
   * it, so an answer naming the handle waits for it. Absent for a store of one process.
   */
  stored?: Promise<void>;
}

/**
 * A handle not held here could not be looked up in the shared store: it is unreachable. Not
 * the same as a miss: the text may well be there, and the client is told to send it again or
 * retry, not that it is gone.
 */
export class StoreUnreachable extends Error {
  constructor() {
    super('the shared store of held texts is unreachable');
    this.name = 'StoreUnreachable';
  }
}

/**
 * Who holds a text and answers for its bounds: one session (a stdio connection, a 2025 HTTP
 * session, an SSE connection), or every stateless request together. A text is charged to the
 * scope that sent it; a handle is looked up in the whole store, whoever presents it (with
 * authentication on, whoever of the same subject: docs/adr/0054).
 */
export interface DocumentScope {
  /** Keeps the text and answers its handle; undefined when it cannot be held. */
  hold(text: string | LiftedDocument): HeldText | undefined;
  /**
   * The text a handle names, from any scope; undefined for anything not held (the same miss). A
   * promise only when it must be fetched (a shared store's text this process does not hold),
   * rejected with `StoreUnreachable` when it cannot be.
   */
  get(handle: string): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  /** Whether the handle is still held, without counting as a use. */
  holds(handle: string): boolean;
  /** Lets go of a text this scope holds (one the engine refused). */
  release(handle: string): void;
  /** The client ended its session (DELETE, the end of stdin): frees every text it holds at once. */
  close(): void;
  /**
   * The server ended the session (evicted, reaped, shut down): it holds nothing more, but its texts
   * stay for their handles, going by their expiry and the bounds like any (ADR 0047).
   */
  leave(): void;
}

export interface DocumentStore {
  /**
   * A new session's scope; close it when the session ends. With authentication on, `owner` is
   * the caller's subject: its handles answer that subject only (docs/adr/0054).
   */
  open(owner?: string): DocumentScope;
  /** The scope every stateless request shares: never closed, its texts expire. */
  readonly stateless: DocumentScope;
  /** The stateless scope of one authenticated caller, whose handles answer that subject only. */
  statelessFor(owner: string): DocumentScope;
  /** What /healthz shows of a shared store: its state and counts, never a key nor a handle. */
  health?(): Readonly<Record<string, string | number>>;
}
