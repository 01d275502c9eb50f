package io.github.lowwater.kafka;

import java.util.ArrayDeque;
import java.util.PriorityQueue;

/**
 * The records of one input partition of a {@link KafkaJoin} task that a new owner would still need
 * to re-read, so that the partition is committed at the oldest of them.
 *
 * <p>A record is <em>pinned</em> from its admission until the task's watermark reaches its pin
 * time: the time by which its own waiting has ended and so has the waiting of every partner it
 * could have, and no on-time record can pair with it any more. Until then a new owner must see it
 * again, to pair it with records still to come or to know that a waiting partner is matched. Late
 * records are never pinned: they pair with nothing.
 *
 * <p>Each pin remembers the partition's own watermark before its record, which the checkpoint
 * carries so that the new owner judges the re-read records exactly as the old one did. One pin per
 * on-time record: an entry in a queue by offset and one in a heap by pin time.
 */
final class JoinPins {

  private static final class Pin {
    final long offset;
    final long pinMillis;
    final long watermarkBefore;
    boolean released;

    Pin(long offset, long pinMillis, long watermarkBefore) {
      this.offset = offset;
      this.pinMillis = pinMillis;
      this.watermarkBefore = watermarkBefore;
    }
  }

  private final ArrayDeque<Pin> byOffset = new ArrayDeque<>();
  private final PriorityQueue<Pin> byTime =
      new PriorityQueue<>((a, b) -> Long.compare(a.pinMillis, b.pinMillis));

  /**
   * Pins the record at {@code offset} (offsets arrive in increasing order) until {@code pinMillis}.
   */
  void pin(long offset, long pinMillis, long watermarkBefore) {
    Pin p = new Pin(offset, pinMillis, watermarkBefore);
    byOffset.addLast(p);
    byTime.add(p);
  }

  /** Releases every pin whose time the watermark has reached. */
  void release(long watermarkMillis) {
    while (!byTime.isEmpty() && byTime.peek().pinMillis <= watermarkMillis) {
      byTime.poll().released = true;
    }
    while (!byOffset.isEmpty() && byOffset.peekFirst().released) {
      byOffset.pollFirst();
    }
  }

  boolean isEmpty() {
    return byOffset.isEmpty();
  }

  /** The oldest pinned offset; only when not {@link #isEmpty()}. */
  long oldestOffset() {
    return byOffset.peekFirst().offset;
  }

  /** The partition's own watermark before the oldest pinned record; only when not empty. */
  long watermarkBeforeOldest() {
    return byOffset.peekFirst().watermarkBefore;
  }

  int size() {
    return byTime.size();
  }
}
