package io.github.lowwater.kafka;

import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the instances of a {@link KafkaWindowsGroupTest} run write their rows, and what the run
 * reads back: {@link H2Sink}, which upserts on (window start, partition, key) for the runs whose
 * every row is its window's one row, or {@link PaneSink}, which upserts on condition (generation,
 * index) for the runs with early results and a grace period. Thread-safe: the instance threads of a
 * group write concurrently.
 */
interface GroupSink extends AutoCloseable {

  /**
   * Writes one row.
   *
   * @param writer the instance that writes, for the messages
   * @param generation the writer's {@code consumer.groupMetadata().generationId()} as it writes
   * @param topic the topic of the row's partition
   * @param partition the row's partition
   * @param windowStart the window's start, epoch milliseconds
   * @param key the key
   * @param value the window's whole value so far
   * @param timing the row's timing
   * @param index the row's index among the rows of its window, partition and key
   * @param isFinal whether the row says no row of its window, partition and key will follow
   */
  void write(
      String writer,
      int generation,
      String topic,
      int partition,
      long windowStart,
      String key,
      long value,
      Timing timing,
      int index,
      boolean isFinal);

  /**
   * Deletes the row of a session that the next row replaces (semantics rule 56), unless it was
   * written by a newer generation. Only the pane sink takes it.
   *
   * @param writer the instance that writes, for the messages
   * @param generation the writer's generation as it writes
   * @param topic the topic of the row's partition
   * @param partition the row's partition
   * @param windowStart the replaced row's start, epoch milliseconds
   * @param key the key
   */
  default void delete(
      String writer, int generation, String topic, int partition, long windowStart, String key) {
    throw new UnsupportedOperationException("only the pane sink has rows that are replaced");
  }

  /**
   * Writes one row that says whether it is complete ({@link WindowResult#isComplete()}): the sinks
   * of these runs get complete rows only, unless they say otherwise.
   *
   * @param complete whether the row is complete
   * @throws UnsupportedOperationException for an incomplete row, unless the sink overrides it
   */
  default void write(
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
    if (!complete) {
      throw new UnsupportedOperationException("an incomplete row in a run that has none");
    }
    write(writer, generation, topic, partition, windowStart, key, value, timing, index, isFinal);
  }

  /**
   * Writes a per-partition result of {@link KafkaWindows#pollFinalized()}, with its pane, after
   * deleting the rows it replaces.
   */
  default void write(String writer, int generation, WindowResult<String, Long> r) {
    TopicPartition tp = (TopicPartition) r.source();
    for (long start : r.replaces()) {
      delete(writer, generation, tp.topic(), tp.partition(), start, r.key());
    }
    write(
        writer,
        generation,
        tp.topic(),
        tp.partition(),
        r.start(),
        r.key(),
        r.value(),
        r.timing(),
        r.index(),
        r.isFinal(),
        r.isComplete());
  }

  /**
   * Window start to key to the sum over partitions of the rows the sink holds for {@code topic}.
   */
  TreeMap<Long, TreeMap<String, Long>> sumOverPartitions(String topic);

  /** Every row rewritten with another value than it had, in order. */
  List<String> violations();

  /** How many distinct rows were written. */
  long rows();

  /** How many writes repeated a row with the value it already had. */
  long rewrites();

  @Override
  void close();

  /**
   * Opens a new, empty, private in-memory H2 database, named {@code prefix} and a random UUID, with
   * the one table {@code createTable} makes.
   *
   * @throws SQLException if H2 refuses
   */
  static Connection open(String prefix, String createTable) throws SQLException {
    Connection connection =
        DriverManager.getConnection("jdbc:h2:mem:" + prefix + UUID.randomUUID(), "sa", "");
    try (Statement s = connection.createStatement()) {
      s.execute(createTable);
    }
    return connection;
  }

  /**
   * Runs {@code query}, whose one parameter is the topic and whose columns are window start, key
   * and sum, into window start to key to sum.
   */
  static TreeMap<Long, TreeMap<String, Long>> sums(
      Connection connection, String query, String topic) {
    TreeMap<Long, TreeMap<String, Long>> sums = new TreeMap<>();
    try (PreparedStatement q = connection.prepareStatement(query)) {
      q.setString(1, topic);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          sums.computeIfAbsent(rs.getLong(1), s -> new TreeMap<>())
              .put(rs.getString(2), rs.getLong(3));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("query failed", e);
    }
    return sums;
  }

  /** Closes a sink's connection; {@code what} names the sink in the exception. */
  static void close(Connection connection, String what) {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException("could not close " + what, e);
    }
  }
}
