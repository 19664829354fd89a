import type { LiftedDocument } from '../lifted-document.js';

/*
 * What the tools need from wherever held texts are kept (docs/adr/0039): the process's own memory
 * today (held-documents.ts); another store (a shared one for several processes, issue 23) is
 * another implementation of these two interfaces, and nothing in server.ts or
 * document-handles.ts changes for it.
 */

/** A text just held, and whether this call is the one that made its handle. */
export interface HeldText {
  handle: string;
  bytes: Uint8Array;
  fresh: boolean;
}

/**
 * Who holds a text and answers for its bounds: one session (a stdio connection, a 2025 HTTP
 * session, an SSE connection), or every stateless request together. A text is charged to the
 * scope that sent it; a handle is looked up in the whole store, whoever presents it.
 */
export interface DocumentScope {
  /** Keeps the text and answers its handle; undefined when it cannot be held. */
  hold(text: string | LiftedDocument): HeldText | undefined;
  /** The text a handle names, from any scope; undefined for anything not held (the same miss). */
  get(handle: string): Uint8Array | undefined;
  /** Whether the handle is still held, without counting as a use. */
  holds(handle: string): boolean;
  /** Lets go of a text this scope holds (one the engine refused). */
  release(handle: string): void;
  /** The session ended: frees every text it holds at once. */
  close(): void;
}

export interface DocumentStore {
  /** A new session's scope; close it when the session ends. */
  open(): DocumentScope;
  /** The scope every stateless request shares: never closed, its texts expire. */
  readonly stateless: DocumentScope;
}
