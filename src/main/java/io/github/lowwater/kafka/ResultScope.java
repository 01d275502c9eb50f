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
  MERGED,

  /**
   * Two or more input topics read in one event time, co-partitioned: partition {@code i} of every
   * subscribed topic forms one <em>task</em>, whose windows hold the records of all of them (a
   * reconciliation of a source topic against a target topic, with {@link
   * io.github.lowwater.join.Reconciliation}). One result per (window, task, key), closed when the
   * task's watermark, the minimum over its partitions' own watermarks, passes the window's end;
   * each record is judged late against its own partition's watermark (semantics rule 72), so the
   * rows do not depend on how the broker interleaves the partitions, and each partition is
   * committed at the oldest of its records an open window of the task still needs, with its
   * checkpoint: whichever instance owns a task, it writes the same rows. {@code source()} is the
   * task's partition of the first subscribed topic in name order. The topics must have equal
   * partition counts and the same key partitioning; an instance that holds only some partitions of
   * a task (an assignor that does not co-partition) holds the task (semantics rule 73). Tumbling,
   * hopping and sliding windows without early results or the future guard, for now. A grace period
   * (tumbling and hopping) holds each late update until its window retires, then gives each key
   * with one a final {@code LATE} row at its next index (semantics rule 72): a replica's backlog
   * read within the grace period corrects the rows its outage made one-sided.
   */
  CO_PARTITIONED
}
