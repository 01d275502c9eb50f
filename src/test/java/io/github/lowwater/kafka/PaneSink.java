package io.github.lowwater.kafka;

import io.github.lowwater.window.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sink of {@code docs/kafka.md}, "Sinks for early and late rows", for the group test's runs
 * with early results and a grace period: an in-memory H2 table of per-partition rows, written with
 * that section's {@code MERGE}, which replaces the held row of (window start, topic, partition,
 * key) iff the new row is complete and the held one is not, or its (generation, index) is at least
 * the held one's; an incomplete row only where there is none (issue 45, item 2). Beside the table,
 * a log of every write for the checks: each row's first value by its {@link Place} (window,
 * partition, key, index); a later write of the same place with another value (or timing, or
 * finality) is a violation (semantics rule 54: where no wall-clock rule acted, every owner writes
 * the row of one reading at each index), with the same pane a rewrite; and the writes in order,
 * numbered, so that a check can take the rows written after a moment.
 *
 * <p>Thread-safe: the instance threads of a group write concurrently, through one connection under
 * this object's lock. Every write first reads the held (generation, index), so that the sink counts
 * the rows it refused and checks that the {@code MERGE} did what the rule says.
 */
final class PaneSink implements GroupSink {

  /** Where a row goes in the log: its window, partition, key and index. */
  record Place(long windowStart, int partition, String key, int index) {
    static final Comparator<Place> ORDER =
        Comparator.comparingInt(Place::partition)
            .thenComparingLong(Place::windowStart)
            .thenComparing(Place::key)
            .thenComparingInt(Place::index);
  }

  /** What a row says at its place. */
  record Pane(long value, Timing timing, boolean isFinal) {
    @Override
    public String toString() {
      return value + " " + timing + (isFinal ? " final" : "");
    }
  }

  /** One write, numbered in the order of the sink. */
  record Write(long sequence, String writer, int generation, Place place, Pane pane) {}

  private final Connection connection;
  private final PreparedStatement held;
  private final PreparedStatement merge;
  private final PreparedStatement delete;
  private long deletes;
  private final Map<Place, Pane> first = new HashMap<>();
  private final List<Write> writes = new ArrayList<>();
  private final Map<Integer, List<String>> violations = new TreeMap<>();
  private long rewrites;
  private long refused;
  private long newerGenerationLowerIndex;

  /** Opens a new, empty, private in-memory database. */
  PaneSink() {
    try {
      connection =
          GroupSink.open(
              "lowwater-panes-",
              "CREATE TABLE counts(window_start BIGINT, topic VARCHAR, kafka_partition INT,"
                  + " k VARCHAR, v BIGINT, timing VARCHAR, pane_index INT, generation INT,"
                  + " complete BOOLEAN, PRIMARY KEY(window_start, topic, kafka_partition, k))");
      held =
          connection.prepareStatement(
              "SELECT generation, pane_index, complete FROM counts"
                  + " WHERE window_start = ? AND topic = ? AND kafka_partition = ? AND k = ?");
      // docs/kafka.md, "Sinks for early and late rows", with typed parameters for H2.
      merge =
          connection.prepareStatement(
              "MERGE INTO counts t USING (VALUES (CAST(? AS BIGINT), CAST(? AS VARCHAR),"
                  + " CAST(? AS INT), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS VARCHAR),"
                  + " CAST(? AS INT), CAST(? AS INT), CAST(? AS BOOLEAN)))"
                  + " AS r(window_start, topic, kafka_partition, k, v, timing, pane_index,"
                  + " generation, complete)"
                  + " ON t.window_start = r.window_start AND t.topic = r.topic"
                  + " AND t.kafka_partition = r.kafka_partition AND t.k = r.k"
                  + " WHEN MATCHED AND r.complete"
                  + " AND (NOT t.complete"
                  + " OR r.generation > t.generation"
                  + " OR (r.generation = t.generation AND r.pane_index >= t.pane_index)) THEN"
                  + " UPDATE SET v = r.v, timing = r.timing, pane_index = r.pane_index,"
                  + " generation = r.generation, complete = r.complete"
                  + " WHEN NOT MATCHED THEN INSERT VALUES (r.window_start, r.topic,"
                  + " r.kafka_partition, r.k, r.v, r.timing, r.pane_index, r.generation,"
                  + " r.complete)");
      // docs/kafka.md, "Sinks for early and late rows": a session row's replaced rows become
      // tombstones of the replacing writer's generation and the highest index, so that no write
      // of the same generation, a stale one included, brings them back.
      delete =
          connection.prepareStatement(
              "MERGE INTO counts t USING (VALUES (CAST(? AS BIGINT), CAST(? AS VARCHAR),"
                  + " CAST(? AS INT), CAST(? AS VARCHAR), CAST(? AS INT)))"
                  + " AS r(window_start, topic, kafka_partition, k, generation)"
                  + " ON t.window_start = r.window_start AND t.topic = r.topic"
                  + " AND t.kafka_partition = r.kafka_partition AND t.k = r.k"
                  + " WHEN MATCHED AND r.generation >= t.generation THEN"
                  + " UPDATE SET v = NULL, timing = 'REPLACED', pane_index = 2147483647,"
                  + " generation = r.generation, complete = TRUE"
                  + " WHEN NOT MATCHED THEN INSERT VALUES (r.window_start, r.topic,"
                  + " r.kafka_partition, r.k, NULL, 'REPLACED', 2147483647, r.generation, TRUE)");
    } catch (SQLException e) {
      throw new IllegalStateException("could not open the pane sink", e);
    }
  }

  @Override
  public synchronized void delete(
      String writer, int generation, String topic, int partition, long windowStart, String key) {
    try {
      delete.setLong(1, windowStart);
      delete.setString(2, topic);
      delete.setInt(3, partition);
      delete.setString(4, key);
      delete.setInt(5, generation);
      deletes += delete.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("delete failed", e);
    }
  }

  /** How many rows a session row's replacement made tombstones of (inserted or updated). */
  synchronized long deletes() {
    return deletes;
  }

  @Override
  public void write(
      String writer,
      int generation,
      String topic,
      int partition,
      long windowStart,
      String key,
      long value,
      Timing timing,
      int index,
      boolean isFinal) {
    write(
        writer,
        generation,
        topic,
        partition,
        windowStart,
        key,
        value,
        timing,
        index,
        isFinal,
        true);
  }

  @Override
  public synchronized void write(
      String writer,
      int generation,
      String topic,
      int partition,
      long windowStart,
      String key,
      long value,
      Timing timing,
      int index,
      boolean isFinal,
      boolean complete) {
    Place place = new Place(windowStart, partition, key, index);
    Pane pane = new Pane(value, timing, isFinal);
    writes.add(new Write(writes.size(), writer, generation, place, pane));
    Pane before = first.putIfAbsent(place, pane);
    if (before != null && !before.equals(pane)) {
      violations
          .computeIfAbsent(partition, p -> new ArrayList<>())
          .add(
              String.format(
                  "%s (generation %d) rewrote %s with %s, first written as %s",
                  writer, generation, place, pane, before));
    } else if (before != null) {
      rewrites++;
    }
    try {
      held.setLong(1, windowStart);
      held.setString(2, topic);
      held.setInt(3, partition);
      held.setString(4, key);
      boolean replaces = true;
      try (ResultSet rs = held.executeQuery()) {
        if (rs.next()) {
          int heldGeneration = rs.getInt(1);
          int heldIndex = rs.getInt(2);
          boolean heldComplete = rs.getBoolean(3);
          replaces =
              complete
                  && (!heldComplete
                      || generation > heldGeneration
                      || (generation == heldGeneration && index >= heldIndex));
          if (generation > heldGeneration && index < heldIndex) {
            newerGenerationLowerIndex++;
          }
        }
      }
      merge.setLong(1, windowStart);
      merge.setString(2, topic);
      merge.setInt(3, partition);
      merge.setString(4, key);
      merge.setLong(5, value);
      merge.setString(6, timing.name());
      merge.setInt(7, index);
      merge.setInt(8, generation);
      merge.setBoolean(9, complete);
      int changed = merge.executeUpdate();
      if ((changed == 1) != replaces) {
        throw new IllegalStateException(
            "the MERGE changed " + changed + " rows for " + place + ", the rule says " + replaces);
      }
      if (!replaces) {
        refused++;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("upsert failed", e);
    }
  }

  @Override
  public synchronized TreeMap<Long, TreeMap<String, Long>> sumOverPartitions(String topic) {
    return GroupSink.sums(
        connection,
        "SELECT window_start, k, SUM(v) FROM counts WHERE topic = ? AND v IS NOT NULL"
            + " GROUP BY window_start, k",
        topic);
  }

  @Override
  public synchronized List<String> violations() {
    return violationsOutside(List.of());
  }

  /** The violations on the partitions not in {@code exempt}, in order per partition. */
  synchronized List<String> violationsOutside(Collection<Integer> exempt) {
    List<String> all = new ArrayList<>();
    violations.forEach(
        (partition, list) -> {
          if (!exempt.contains(partition)) {
            all.addAll(list);
          }
        });
    return all;
  }

  /** How many places were written: distinct (window, partition, key, index). */
  @Override
  public synchronized long rows() {
    return first.size();
  }

  @Override
  public synchronized long rewrites() {
    return rewrites;
  }

  /** How many writes the condition refused: a (generation, index) below the held one. */
  synchronized long refused() {
    return refused;
  }

  /** How many writes of a newer generation replaced a row of a higher index. */
  synchronized long newerGenerationLowerIndex() {
    return newerGenerationLowerIndex;
  }

  /** How many places hold a row of {@code timing}. */
  synchronized long places(Timing timing) {
    return first.values().stream().filter(p -> p.timing() == timing).count();
  }

  /** How many writes the sink has taken: the sequence number of the next one. */
  synchronized long sequence() {
    return writes.size();
  }

  /** Every place of {@code partitions} with its first value. */
  synchronized TreeMap<Place, Pane> rowsOf(Collection<Integer> partitions) {
    TreeMap<Place, Pane> rows = new TreeMap<>(Place.ORDER);
    first.forEach(
        (place, pane) -> {
          if (partitions.contains(place.partition())) {
            rows.put(place, pane);
          }
        });
    return rows;
  }

  /**
   * The rows of {@code partitions} written at or after write {@code sequence}, each with its last
   * value (a place written with two values is a violation, reported apart).
   */
  synchronized TreeMap<Place, Pane> writtenFrom(long sequence, Collection<Integer> partitions) {
    TreeMap<Place, Pane> rows = new TreeMap<>(Place.ORDER);
    for (Write w : writes.subList(Math.toIntExact(sequence), writes.size())) {
      if (partitions.contains(w.place().partition())) {
        rows.put(w.place(), w.pane());
      }
    }
    return rows;
  }

  @Override
  public synchronized void close() {
    GroupSink.close(connection, "the pane sink");
  }
}
