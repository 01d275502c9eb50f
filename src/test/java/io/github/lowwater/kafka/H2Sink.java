package io.github.lowwater.kafka;

import io.github.lowwater.window.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A real SQL sink for the group tests: an in-memory H2 database with one table of per-partition
 * window rows, written with an upsert on (window start, topic, partition, key), the way a user of
 * {@link ResultScope#PER_PARTITION} writes. Every upsert first reads the row it replaces: a row
 * overwritten with a different value is a violation (the sink is only exact if a row, once written,
 * is only ever rewritten with the same value); a row rewritten with the same value is counted.
 * Thread-safe: the instance threads of a group write concurrently, through one connection under
 * this object's lock.
 */
final class H2Sink implements GroupSink {

  private final Connection connection;
  private final PreparedStatement select;
  private final PreparedStatement merge;
  private final List<String> violations = new ArrayList<>();
  private long rows;
  private long rewrites;

  /** Opens a new, empty, private in-memory database. */
  H2Sink() {
    try {
      connection =
          GroupSink.open(
              "lowwater-",
              "CREATE TABLE window_rows(window_start BIGINT, topic VARCHAR, part INT,"
                  + " window_key VARCHAR, val BIGINT,"
                  + " PRIMARY KEY(window_start, topic, part, window_key))");
      select =
          connection.prepareStatement(
              "SELECT val FROM window_rows"
                  + " WHERE window_start = ? AND topic = ? AND part = ? AND window_key = ?");
      merge =
          connection.prepareStatement(
              "MERGE INTO window_rows(window_start, topic, part, window_key, val)"
                  + " KEY(window_start, topic, part, window_key) VALUES (?, ?, ?, ?, ?)");
    } catch (SQLException e) {
      throw new IllegalStateException("could not open the H2 sink", e);
    }
  }

  /**
   * Upserts the row on (window start, topic, partition, key): the pane and the generation are not
   * stored, every row of these runs being its window's one row (on time, index 0, final).
   */
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
    upsert(writer, windowStart, topic, partition, key, value);
  }

  /**
   * Writes one row, replacing the row of the same (window start, topic, partition, key).
   *
   * @param writer who writes, for the violation message
   */
  synchronized void upsert(
      String writer, long windowStart, String topic, int partition, String key, long value) {
    try {
      select.setLong(1, windowStart);
      select.setString(2, topic);
      select.setInt(3, partition);
      select.setString(4, key);
      try (ResultSet rs = select.executeQuery()) {
        if (rs.next()) {
          long previous = rs.getLong(1);
          if (previous != value) {
            violations.add(
                String.format(
                    "%s overwrote window %d %s-%d key %s: %d -> %d",
                    writer, windowStart, topic, partition, key, previous, value));
          } else {
            rewrites++;
          }
        } else {
          rows++;
        }
      }
      merge.setLong(1, windowStart);
      merge.setString(2, topic);
      merge.setInt(3, partition);
      merge.setString(4, key);
      merge.setLong(5, value);
      merge.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("upsert failed", e);
    }
  }

  /** Window start to key to the sum of the rows of every partition of {@code topic}. */
  @Override
  public synchronized TreeMap<Long, TreeMap<String, Long>> sumOverPartitions(String topic) {
    return GroupSink.sums(
        connection,
        "SELECT window_start, window_key, SUM(val) FROM window_rows WHERE topic = ?"
            + " GROUP BY window_start, window_key",
        topic);
  }

  /** Every overwrite of a row with a different value, in order. */
  @Override
  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** How many distinct rows were written. */
  @Override
  public synchronized long rows() {
    return rows;
  }

  /** How many upserts rewrote an existing row with the value it already had. */
  @Override
  public synchronized long rewrites() {
    return rewrites;
  }

  @Override
  public synchronized void close() {
    GroupSink.close(connection, "the H2 sink");
  }
}
