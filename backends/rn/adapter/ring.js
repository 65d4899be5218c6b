// Per-stream event ring buffers and resume planning (which gap, which replay) for wire protocol v1.

/** Fixed-capacity buffer of a stream's events, oldest first; evicts the oldest when full. */
export class RingBuffer {
  constructor(capacity) {
    if (!(capacity >= 1)) throw new RangeError('ring buffer capacity must be >= 1');
    this.capacity = capacity;
    this.entries = new Array(capacity);
    this.start = 0;
    this.size = 0;
    this.lastSeq = 0;
    this.evicted = 0;
  }
  /** entry: {seq, ...}; seqs must increase by one. Returns the evicted entry, if any. */
  push(entry) {
    let out;
    if (this.size === this.capacity) {
      out = this.entries[this.start];
      this.entries[this.start] = entry;
      this.start = (this.start + 1) % this.capacity;
      this.evicted++;
    } else {
      this.entries[(this.start + this.size) % this.capacity] = entry;
      this.size++;
    }
    this.lastSeq = entry.seq;
    return out;
  }
  /** Seq of the oldest buffered event; lastSeq + 1 when empty. */
  get oldestSeq() {
    return this.size ? this.entries[this.start].seq : this.lastSeq + 1;
  }
  get fill() {
    return this.size / this.capacity;
  }
  at(i) {
    return this.entries[(this.start + i) % this.capacity];
  }
  /** Entries with seq > afterSeq, oldest first. */
  since(afterSeq) {
    const out = [];
    const first = Math.max(0, afterSeq + 1 - this.oldestSeq);
    for (let i = first; i < this.size; i++) out.push(this.at(i));
    return out;
  }
}

/**
 * What to send for one stream after `welcome` (PROTOCOL.md §9): the seqs the server lacks that are gone from the
 * buffer (`gap`, or null) and the first seq to replay (`replayFrom`, or null when nothing is missing).
 */
export function planResume(stream, resume) {
  const r = Math.max(0, Math.floor(Number(resume) || 0));
  if (r >= stream.lastSeq) return { gap: null, replayFrom: null };
  const gap = r + 1 < stream.oldestSeq ? { from: r + 1, to: stream.oldestSeq - 1 } : null;
  const replayFrom = Math.max(r + 1, stream.oldestSeq);
  return { gap, replayFrom: replayFrom <= stream.lastSeq ? replayFrom : null };
}
