package io.github.lowwater.kafka;

/**
 * What one window result of {@link KafkaWindows} covers, and so when it closes and what a sink does
 * with it.
 */
public enum ResultScope {

  /**
   * One result per (window, partition, key), closed when that partition's own watermark (its
   * frontier minus the allowed lateness, or the wall clock after a quiet period) passes the
   * window's end; {@link io.github.lowwater.window.WindowResult#source()} is the {@code
   * TopicPartition}. A partition's results depend on that partition's records only, so whichever
   * instance of a consumer group owns it, and however often it moves, it recomputes the same rows:
   * a sink that upserts on (window start, partition, key) and sums over partitions when read gets
   * exactly the truth. A fast partition's windows never wait for a slow one. The default.
   */
  PER_PARTITION,

  /**
   * One result per (window, key), over every partition this instance owns, closed on the minimum
   * over its partitions (the instance's watermark); {@code source()} is {@code null}. Exact for one
   * consumer that owns every partition for its whole life, restarts included; in a group whose
   * membership changes, a partition that moves while its old owner lives is counted by both owners
   * (at least once). See the guarantees table in {@code docs/kafka.md}.
   */
  MERGED
}
