package io.github.lowwater.spring;

import io.github.lowwater.window.WindowResult;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;

/**
 * An upserting sink shared by the applications of one test, as a database would be: rows by (window
 * start, partition, key); a row rewritten with another value is recorded as a conflict.
 */
final class Rows {
  final Map<String, Long> rows = new ConcurrentHashMap<>();
  final List<String> conflicts = new CopyOnWriteArrayList<>();

  void upsert(List<WindowResult<String, Long>> written) {
    for (WindowResult<String, Long> r : written) {
      String row = r.start() + "/" + ((TopicPartition) r.source()).partition() + "/" + r.key();
      Long before = rows.put(row, r.value());
      if (before != null && !before.equals(r.value())) {
        conflicts.add(row + ": " + before + " then " + r.value());
      }
    }
  }

  /** Window start and key to the count, summed over partitions. */
  Map<String, Long> summed() {
    Map<String, Long> summed = new TreeMap<>();
    rows.forEach((row, count) -> summed.merge(row.replaceFirst("/\\d+/", "/"), count, Long::sum));
    return summed;
  }
}
