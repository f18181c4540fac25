// @ts-check
// The tabs' data to the bridge in a lane of its own, behind the answers (issue 35). One link
// carries every tab, and a heavy tab's update is megabytes: sent as one frame, every answer sent
// after it (a call's result, an approval) waited until its last byte had crossed, and the worker's
// one thread was held by the native send of all of it. Here the tabs' messages (updates, sync
// parts, closings, telemetry, site status) wait in one queue, in order among themselves; one
// longer than a chunk goes as `chunk` messages of SIZE.chunk characters (to a bridge whose welcome
// said `chunks`, which puts them back together: bridge/tabmcp/core/chunks.py), and the next piece
// goes only once the socket has taken the last (`bufferedAmount` below a chunk) and while at most
// CHUNKS_UNREAD of them are not yet read by the bridge (`chunk.read`): past the renderer, the
// network service and the kernel would hold megabytes of chunks ahead of an answer whenever the
// bridge reads slower than the browser sends. Everything else is sent at once (link.js), so an
// answer waits behind a couple of chunks at most, and the thread is free between chunks for the
// calls that come.
import { OUT } from '../protocol.js';
import { LIMITS, state } from './state.js';
import { flushOutbox } from './link.js';

const { SIZE, bytesOver, showBytes } = LIMITS;

/** The messages of this lane: the tabs' data, whose order among themselves the bridge relies on. */
export const TAB_DATA = new Set([OUT.tabsSync, OUT.tabUpdate, OUT.tabClosed, OUT.telemetry, OUT.siteStatus]);

/**
 * A message waiting in the lane: its JSON text is made when its turn comes (`make`), then sent
 * whole or a chunk at a time from `offset`.
 * @typedef {{message: any, make: string | (() => string) | undefined, text: string | null, tabId?: number,
 *   id: number, part: number, offset: number}} Queued
 * @type {{ws: WebSocket | null, queue: Queued[], ids: number, timer: ReturnType<typeof setTimeout> | 0, unread: number}}
 */
let lane = { ws: null, queue: [], ids: 0, timer: 0, unread: 0 };

/** Chunks sent and not yet read by the bridge, at most: what an answer can be behind. */
const CHUNKS_UNREAD = 2;

/** The bridge read a chunk (`chunk.read`): the lane goes on. */
export function onChunkRead() {
  if (lane.ws !== state.ws || lane.unread === 0) return;
  lane.unread--;
  if (!lane.timer) pump();
}

/**
 * Queue a message of the tabs' data for `ws` and send what the socket can take now. `make`: its
 * JSON text, or what makes it when its turn comes (a tab's update: one replaced while it waited is
 * never serialized). A tab's update replaces one of the same tab not yet begun: the bridge needs
 * its latest state, not each one on the way (a page registering tools one by one).
 * @param {WebSocket} ws @param {any} message @param {string | (() => string)} [make]
 */
export function sendTabData(ws, message, make) {
  if (lane.ws !== ws) {
    clearTimeout(lane.timer);
    lane = { ws, queue: [], ids: lane.ids, timer: 0, unread: 0 };
  }
  const tabId = message.type === OUT.tabUpdate ? message.tab && message.tab.tabId : undefined;
  if (tabId !== undefined) {
    const waiting = lane.queue.findIndex((q) => q.tabId === tabId && q.text === null);
    if (waiting >= 0) lane.queue.splice(waiting, 1);
  }
  lane.queue.push({ message, make, text: null, tabId, id: lane.ids++, part: 0, offset: 0 });
  if (!lane.timer) pump();
}

/** Send from the lane while the socket holds less than a chunk and fewer than CHUNKS_UNREAD chunks
 * are unread; the rest on a later task (the socket) or at the next `chunk.read` (the bridge). */
function pump() {
  lane.timer = 0;
  const ws = lane.ws;
  if (!ws || ws !== state.ws || ws.readyState !== WebSocket.OPEN) {
    lane.queue = [];
    return;
  }
  flushOutbox(); // answers waiting for the end of the task go first (a call its tab's closing ended, then the closing)
  while (lane.queue.length && lane.unread < CHUNKS_UNREAD && ws.bufferedAmount < SIZE.chunk) {
    const head = lane.queue[0];
    if (head.text === null && !textOf(head)) continue;
    if (head.offset === 0 && (head.text.length <= SIZE.chunk || !state.chunks)) {
      ws.send(wholeMessages());
    } else {
      ws.send(nextChunk(head));
      lane.unread++;
    }
  }
  // Waiting for the socket: look again on a later task; for the bridge: its next `chunk.read`.
  if (lane.queue.length && lane.unread < CHUNKS_UNREAD) lane.timer = setTimeout(pump, 0);
}

/** The head's JSON text, made now; false (and it leaves the queue) when it is too large to send. @param {Queued} head */
function textOf(head) {
  const { make, message } = head;
  const text = typeof make === 'function' ? make() : make ?? JSON.stringify(message);
  const over = bytesOver(text, SIZE.frame);
  if (over) {
    // Never a message the bridge must refuse (a tab is sent without its definitions long before this).
    console.warn('[tabmcp] not sent, too large for one message:', message.type, showBytes(over));
    lane.queue.shift();
    return false;
  }
  head.text = text;
  return true;
}

/** The whole messages first in line, joined into one frame (one a line) while they fit a chunk. */
function wholeMessages() {
  const first = /** @type {Queued} */ (lane.queue.shift());
  const lines = [/** @type {string} */ (first.text)];
  let units = lines[0].length;
  while (state.batch && lane.queue.length && lane.queue[0].offset === 0) {
    const next = lane.queue[0];
    if (next.text === null && typeof next.make === 'function') break; // made in its own turn (a tab's update)
    if (next.text === null && !textOf(next)) continue;
    if (units + /** @type {string} */ (next.text).length + 1 > SIZE.chunk) break;
    lane.queue.shift();
    lines.push(/** @type {string} */ (next.text));
    units += /** @type {string} */ (next.text).length + 1;
  }
  return lines.length === 1 ? lines[0] : lines.join('\n');
}

/** The next chunk of `head` (it leaves the queue with its last). @param {Queued} head */
function nextChunk(head) {
  const text = /** @type {string} */ (head.text);
  let end = Math.min(head.offset + SIZE.chunk, text.length);
  const unit = text.charCodeAt(end - 1);
  if (end < text.length && unit >= 0xd800 && unit <= 0xdbff) end--; // never half a surrogate pair
  const last = end === text.length;
  const chunk = {
    type: OUT.chunk,
    id: head.id,
    part: head.part++,
    data: text.slice(head.offset, end),
    ...(last ? { last: true } : {}),
    ...(head.tabId !== undefined ? { tabId: head.tabId } : {}),
  };
  head.offset = end;
  if (last) lane.queue.shift();
  return JSON.stringify(chunk);
}
