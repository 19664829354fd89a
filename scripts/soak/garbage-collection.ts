import { sleep } from '../lib/time.js';

/** process.memoryUsage() as one thread of the server sees it after its collection. */
export interface ThreadHeap {
  thread: string;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface InspectorMessage {
  id?: number;
  method?: string;
  params?: { sessionId: string; message: string };
  result?: { result: { value: string } };
  error?: { message: string };
}

const USAGE_EXPRESSION = { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true };

/**
 * A full, memory-reducing garbage collection (HeapProfiler.collectGarbage) of the server's main
 * thread and of every worker thread, through the server's loopback inspector. Resolves with
 * process.memoryUsage() as each thread sees it after its collection (heapUsed is per thread).
 * Needs a global WebSocket (Node 20: --experimental-websocket).
 */
export async function collectGarbage(url: string): Promise<ThreadHeap[]> {
  const ws = new WebSocket(url);
  let nextId = 1;
  const pending = new Map<string, (message: InspectorMessage) => void>();
  const workers: string[] = [];
  const detached = new Set<string>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as InspectorMessage;
    const params = message.params;
    if (message.method === 'NodeWorker.attachedToWorker' && params) workers.push(params.sessionId);
    // A worker the pool recycles may exit mid-collection: its pending replies will never come.
    if (message.method === 'NodeWorker.detachedFromWorker' && params) {
      detached.add(params.sessionId);
      for (const [key, settle] of pending) {
        if (key.startsWith(`${params.sessionId}:`)) settle({ error: { message: 'worker exited' } });
      }
    }
    if (message.method === 'NodeWorker.receivedMessageFromWorker' && params) {
      const inner = JSON.parse(params.message) as InspectorMessage;
      pending.get(`${params.sessionId}:${inner.id}`)?.(inner);
    }
    if (message.id !== undefined) pending.get(String(message.id))?.(message);
  });
  const reply = (key: string) =>
    new Promise<InspectorMessage>((resolve, reject) =>
      pending.set(key, (message) =>
        message.error ? reject(new Error(message.error.message)) : resolve(message),
      ),
    );
  const call = (method: string, params: object = {}) => {
    const id = nextId++;
    const answer = reply(String(id));
    ws.send(JSON.stringify({ id, method, params }));
    return answer;
  };
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error(`cannot open ${url}`)), { once: true });
  });
  const usageOf = (message: InspectorMessage) =>
    JSON.parse(message.result?.result.value ?? '{}') as Omit<ThreadHeap, 'thread'>;
  try {
    await call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await sleep(200);
    const heaps: ThreadHeap[] = [];
    for (const [index, sessionId] of workers.entries()) {
      const inWorker = async (id: number, method: string, params: object = {}) => {
        if (detached.has(sessionId)) throw new Error('worker exited');
        const answer = reply(`${sessionId}:${id}`);
        answer.catch(() => {}); // settled by a detach even if the send below fails first
        await call('NodeWorker.sendMessageToWorker', {
          sessionId,
          message: JSON.stringify({ id, method, params }),
        });
        return answer;
      };
      try {
        await inWorker(1, 'HeapProfiler.collectGarbage');
        heaps.push({
          thread: `worker${index + 1}`,
          ...usageOf(await inWorker(2, 'Runtime.evaluate', USAGE_EXPRESSION)),
        });
      } catch (error) {
        // Only a worker that exited (recycled by the pool) may be skipped; its memory is gone.
        if (!detached.has(sessionId)) throw error;
      }
    }
    await call('HeapProfiler.collectGarbage');
    heaps.unshift({ thread: 'main', ...usageOf(await call('Runtime.evaluate', USAGE_EXPRESSION)) });
    await call('NodeWorker.disable');
    return heaps;
  } finally {
    ws.close();
  }
}

/** One thread's figures for a report line, in MiB: V8 heap used / external / array buffers. */
export const threadMemory = (h: ThreadHeap): string =>
  `${h.thread} ${[h.heapUsed, h.external, h.arrayBuffers].map((b) => (b / 2 ** 20).toFixed(1)).join('/')}`;
