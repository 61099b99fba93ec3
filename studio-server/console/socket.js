// @ts-check
/**
 * The jobs socket with its backfill, as `studio-client/src/events.rs` does it: open
 * `GET /api/toolkit/jobs/ws` first, then ask `GET /api/toolkit/jobs?since=<cursor>` for every
 * change after the newest eventSeq seen, so nothing falls between the two; remember the newest
 * eventSeq of every job so a change seen in both is delivered once. When the socket drops (or
 * the server closes it with 4000 because the page fell behind) it reconnects with backoff and
 * backfills again. 4001 (the session ended) stops it.
 */

import { jobsSince } from './api.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {{type: 'job', job: Job} | {type: 'pack.ready', pack: import('./api.js').Pack}} FeedMessage */

const MAX_BACKOFF_MS = 10_000;
/** A backfill page this long may have a next page. */
const BACKFILL_PAGE = 1000;

export class JobFeed {
  constructor() {
    /** @type {WebSocket | null} */
    this.socket = null;
    /** The highest eventSeq delivered: where a backfill starts. */
    this.cursor = 0;
    /** @type {Map<string, Job>} the newest state of every job seen */
    this.jobs = new Map();
    /** @type {Set<(m: FeedMessage) => void>} */
    this.listeners = new Set();
    this.backoff = 200;
    this.reconnects = 0;
    this.stopped = true;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {'idle' | 'connecting' | 'live' | 'retrying'} */
    this.state = 'idle';
  }

  /** Start following the house's events (idempotent). */
  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Stop and forget (sign-out, house switch). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000);
    this.jobs.clear();
    this.cursor = 0;
    this.state = 'idle';
  }

  /**
   * Be told of every job change and ready pack; returns the unsubscribe.
   * @param {(m: FeedMessage) => void} fn
   */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** @param {FeedMessage} m */
  emit(m) {
    for (const fn of [...this.listeners]) {
      try {
        fn(m);
      } catch (e) {
        console.error(e);
      }
    }
  }

  /**
   * Deliver a job change unless this job's change was already delivered.
   * @param {Job} job
   */
  offer(job) {
    const seen = this.jobs.get(job.id);
    if (seen && job.eventSeq <= seen.eventSeq) return;
    this.jobs.set(job.id, job);
    this.cursor = Math.max(this.cursor, job.eventSeq);
    this.emit({ type: 'job', job });
  }

  connect() {
    if (this.stopped) return;
    this.state = 'connecting';
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/toolkit/jobs/ws`;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.backoff = 200;
      this.state = 'live';
      this.backfill().catch(() => {
        // The socket is open; the next reconnect backfills again.
      });
    };
    socket.onmessage = (e) => {
      /** @type {any} */
      let m;
      try {
        m = JSON.parse(String(e.data));
      } catch {
        return;
      }
      if (m && m.type === 'job' && m.job) this.offer(m.job);
      else if (m && typeof m.type === 'string') this.emit(m);
    };
    socket.onclose = (e) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (e.code === 4001) {
        this.stopped = true;
        this.state = 'idle';
        return;
      }
      this.retry();
    };
  }

  retry() {
    if (this.stopped) return;
    this.state = 'retrying';
    this.reconnects += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
  }

  async backfill() {
    for (;;) {
      const page = await jobsSince(this.cursor);
      for (const job of page.jobs) this.offer(job);
      if (page.jobs.length < BACKFILL_PAGE || this.stopped) return;
    }
  }
}

/** The page's one feed. */
export const feed = new JobFeed();
