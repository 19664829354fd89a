/**
 * A queue that takes turns between clients: each client's items come out in the order they
 * went in, and clients are served round-robin, so one client with a hundred calls waiting
 * delays another client's single call by at most one call per busy client.
 */
export class FairQueue<T> {
  readonly #byClient = new Map<string, T[]>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(client: string, item: T): void {
    const items = this.#byClient.get(client);
    if (items) items.push(item);
    else this.#byClient.set(client, [item]);
    this.#size++;
  }

  /** The item `shift` would return next. */
  peek(): T | undefined {
    for (const items of this.#byClient.values()) return items[0];
    return undefined;
  }

  /** The next item of the client whose turn it is; that client then goes to the back of the line. */
  shift(): T | undefined {
    for (const [client, items] of this.#byClient) {
      const item = items.shift();
      this.#byClient.delete(client);
      if (items.length > 0) this.#byClient.set(client, items);
      if (item !== undefined) {
        this.#size--;
        return item;
      }
    }
    return undefined;
  }

  /** Takes an item out wherever it waits; false when it is not queued. */
  remove(client: string, item: T): boolean {
    const items = this.#byClient.get(client);
    const index = items?.indexOf(item) ?? -1;
    if (!items || index < 0) return false;
    items.splice(index, 1);
    if (items.length === 0) this.#byClient.delete(client);
    this.#size--;
    return true;
  }

  drain(): T[] {
    const all = [...this.#byClient.values()].flat();
    this.#byClient.clear();
    this.#size = 0;
    return all;
  }
}
