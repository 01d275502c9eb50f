package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.PaneSink.Pane;
import io.github.lowwater.kafka.PaneSink.Place;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The part of a {@link KafkaWindowsGroupTest} run with early results and a grace period that the
 * other runs do not have: its {@link PaneSink}, what it notes during the schedule (the wall-clock
 * rules that acted, by partition; the dead instance's partitions and where they were retired
 * through), its reference and its checks (7. to 9. of the group test's javadoc).
 *
 * <p>The reference is what one consumer writes that reads every record of the topic, uninterrupted,
 * with the run's options, through a {@link MockConsumer} (one partition after the other is the same
 * as any interleaving in {@code PER_PARTITION}, where each partition's rows depend on its own
 * records only). Its clock is a {@link ManualClock} that never moves, so no wall-clock rule acts:
 * no quiet period passes and there is no checkpoint to seed from.
 *
 * <p>Thread-safe where the instance threads call it ({@link #clamped}, the sink); the rest is
 * called by the run's thread.
 */
final class PaneRun {

  /** The most differences a message lists per kind. */
  static final int SHOWN = 20;

  final PaneSink sink = new PaneSink();

  /**
   * The wall-clock rules that acted, by partition: a seed clamped at a new owner, a quiet-period
   * advance at any instance that owned the partition.
   */
  private final Map<Integer, String> wallClockRules = new ConcurrentSkipListMap<>();

  /** Every record of the topic, in offset order per partition. */
  final List<ConsumerRecord<String, String>> topicRecords = new ArrayList<>();

  private Set<Integer> deadPartitions = Set.of();
  private long deadAtSequence;
  private final Map<Integer, Long> deadRetiredThrough = new TreeMap<>();

  /**
   * Notes a seed clamped to the wall clock: after the assignment, a partition's watermark below its
   * checkpoint's.
   */
  void clamped(String instance, int partition, long checkpointedMillis, long seededMillis) {
    wallClockRules.merge(
        partition,
        instance + ": seed clamped from " + checkpointedMillis + " to " + seededMillis,
        (a, b) -> a + "; " + b);
  }

  /** Notes an instance's quiet-period advances, charged to every partition it ever owned. */
  void quietAdvances(String instance, long advances, Collection<TopicPartition> ownedEver) {
    if (advances > 0) {
      for (TopicPartition tp : ownedEver) {
        wallClockRules.merge(
            tp.partition(),
            instance + ": " + advances + " quiet-period advances",
            (a, b) -> a + "; " + b);
      }
    }
  }

  /**
   * Notes the crash, once the dead instance has stopped: nothing is written for its partitions
   * until they move, and it commits no more, so {@code committed} holds its last checkpoints.
   */
  void died(Set<TopicPartition> assignment, Map<TopicPartition, OffsetAndMetadata> committed) {
    deadAtSequence = sink.sequence();
    deadPartitions = assignment.stream().map(TopicPartition::partition).collect(Collectors.toSet());
    committed.forEach(
        (tp, om) -> {
          if (om != null && deadPartitions.contains(tp.partition())) {
            deadRetiredThrough.put(
                tp.partition(), Checkpoint.parse(om.metadata()).writtenThroughMillis());
          }
        });
  }

  /** The partitions where a wall-clock rule acted. */
  Set<Integer> exempt() {
    return wallClockRules.keySet();
  }

  /** For the run's summary line. */
  String summary() {
    return String.format(
        "panes: %d EARLY, %d ON_TIME, %d LATE rows, %d writes refused by (generation, index), %d"
            + " replaced by a newer generation's lower index, %d deleted as replaced; wall-clock"
            + " rules %s",
        sink.places(Timing.EARLY),
        sink.places(Timing.ON_TIME),
        sink.places(Timing.LATE),
        sink.refused(),
        sink.newerGenerationLowerIndex(),
        sink.deletes(),
        wallClockRules.isEmpty() ? "none" : wallClockRules);
  }

  /**
   * Checks 7. to 9. of the group test: the rows by (window, partition, key, index) are the
   * reference's, on every partition where no wall-clock rule acted: every row written, and the rows
   * the next owners wrote for the dead instance's partitions; EARLY and LATE rows were written.
   *
   * @param options the run's builder, without consumer
   */
  void verify(
      String group,
      String topic,
      int partitions,
      long windowMillis,
      KafkaWindows.Builder<Long, Long> options,
      String summary) {
    Map<Place, Long> finalEnds = new HashMap<>();
    TreeMap<Place, Pane> reference = read(topic, topicRecords, options, finalEnds);
    Set<Integer> exact = new TreeSet<>();
    for (int p = 0; p < partitions; p++) {
      if (!wallClockRules.containsKey(p)) {
        exact.add(p);
      }
    }
    Set<Integer> deadExact = new TreeSet<>(deadPartitions);
    deadExact.retainAll(exact);
    wallClockRules.forEach(
        (p, rule) ->
            System.out.printf(
                "%s: partition %d is not compared by index, a wall-clock rule acted: %s%n",
                group, p, rule));
    assertThat(deadExact)
        .as("partitions of the dead instance %s where no wall-clock rule acted", deadPartitions)
        .isNotEmpty();
    // 7. Every row written, by any instance, dead ones included, is the reference's row of its
    // index, and every row of the reference was written.
    assertThat(differences(only(reference, in(exact)), sink.rowsOf(exact)))
        .as("rows written vs one uninterrupted reading, on partitions %s; %s", exact, summary)
        .isEmpty();
    // 8. After the crash, the next owners wrote for the dead instance's partitions exactly the
    // reference's rows of every window not retired by the dead instance's last commit.
    TreeMap<Place, Pane> afterTheMove = sink.writtenFrom(deadAtSequence, deadExact);
    // A window not retired by then: its end above the checkpoint's; for a session, the end it
    // finally had (its rows while it ended below come back from the next owner too, held back
    // until it grew past that end).
    Predicate<Place> notRetired =
        place ->
            finalEnds.getOrDefault(place, place.windowStart() + windowMillis)
                > deadRetiredThrough.getOrDefault(place.partition(), Long.MIN_VALUE);
    assertThat(differences(only(reference, in(deadExact).and(notRetired)), afterTheMove))
        .as(
            "rows written for the dead instance's partitions %s after they moved (retired through"
                + " %s) vs one uninterrupted reading; %s",
            deadExact, deadRetiredThrough, summary)
        .isEmpty();
    System.out.printf(
        "%s: %d rows of the reference compared on partitions %s; %d written after the move for"
            + " the dead instance's %s%n",
        group, reference.size(), exact, afterTheMove.size(), deadExact);
    // 9. Not vacuous: early rows and late updates were written, early ones also after the move.
    assertThat(sink.places(Timing.EARLY)).as("EARLY rows; %s", summary).isPositive();
    assertThat(sink.places(Timing.LATE)).as("LATE rows; %s", summary).isPositive();
    assertThat(afterTheMove.values().stream().map(Pane::timing).distinct())
        .as("timings of the rows written after the move")
        .contains(Timing.EARLY, Timing.ON_TIME);
  }

  static Predicate<Place> in(Set<Integer> partitions) {
    return place -> partitions.contains(place.partition());
  }

  /**
   * Reads {@code records} (every record of {@code topic}, in offset order per partition) to the end
   * and returns every row written, by place.
   *
   * @param options the run's builder, without consumer
   */
  static TreeMap<Place, Pane> read(
      String topic,
      List<ConsumerRecord<String, String>> records,
      KafkaWindows.Builder<Long, Long> options,
      Map<Place, Long> finalEnds) {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows =
        options.consumer(consumer).clock(new ManualClock(Instant.now())).build();
    TreeSet<Integer> ids = new TreeSet<>();
    records.forEach(r -> ids.add(r.partition()));
    List<TopicPartition> partitions = new ArrayList<>();
    Map<TopicPartition, Long> beginnings = new HashMap<>();
    for (int p : ids) {
      TopicPartition tp = new TopicPartition(topic, p);
      partitions.add(tp);
      beginnings.put(tp, 0L);
    }
    consumer.subscribe(List.of(topic), windows.rebalanceListener());
    consumer.updateBeginningOffsets(beginnings);
    consumer.rebalance(partitions);
    records.forEach(consumer::addRecord);
    TreeMap<Place, Pane> rows = new TreeMap<>(Place.ORDER);
    List<WindowResult<String, Long>> all = new ArrayList<>();
    for (ConsumerRecords<String, String> batch = consumer.poll(Duration.ZERO);
        !batch.isEmpty();
        batch = consumer.poll(Duration.ZERO)) {
      windows.onPoll(batch, ConsumerRecord::key, r -> Long.parseLong(r.value()));
      all.addAll(windows.pollFinalized());
    }
    windows.finishAll();
    all.addAll(windows.pollFinalized());
    write(all, rows);
    finalEnds.putAll(finalEnds(all));
    return rows;
  }

  /**
   * Sessions (rule 56): the end each row's session finally had, by place. A row's session is that
   * of its (start, partition, key) until a row replaces that start, then the replacing row's.
   */
  static Map<Place, Long> finalEnds(List<WindowResult<String, Long>> rows) {
    Map<List<Object>, List<Object>> replacedBy = new HashMap<>();
    Map<List<Object>, Long> lastEnd = new HashMap<>();
    for (WindowResult<String, Long> r : rows) {
      List<Object> id = List.of(r.start(), r.source(), r.key());
      lastEnd.put(id, r.end());
      for (long start : r.replaces()) {
        replacedBy.put(List.of(start, r.source(), r.key()), id);
      }
    }
    Map<Place, Long> ends = new HashMap<>();
    for (WindowResult<String, Long> r : rows) {
      List<Object> id = List.of(r.start(), r.source(), r.key());
      while (replacedBy.containsKey(id)) {
        id = replacedBy.get(id);
      }
      int partition = ((TopicPartition) r.source()).partition();
      ends.put(new Place(r.start(), partition, r.key(), r.index()), lastEnd.get(id));
    }
    return ends;
  }

  private static void write(List<WindowResult<String, Long>> results, Map<Place, Pane> rows) {
    for (WindowResult<String, Long> r : results) {
      Place place =
          new Place(r.start(), ((TopicPartition) r.source()).partition(), r.key(), r.index());
      Pane before = rows.put(place, new Pane(r.value(), r.timing(), r.isFinal()));
      if (before != null) {
        throw new IllegalStateException("the reference wrote " + place + " twice");
      }
    }
  }

  /** The rows of {@code rows} whose place passes {@code filter}. */
  static TreeMap<Place, Pane> only(Map<Place, Pane> rows, Predicate<Place> filter) {
    TreeMap<Place, Pane> kept = new TreeMap<>(Place.ORDER);
    rows.forEach(
        (place, pane) -> {
          if (filter.test(place)) {
            kept.put(place, pane);
          }
        });
    return kept;
  }

  /**
   * Where {@code actual} differs from {@code expected}: places missing, extra, or with another
   * pane, the first {@link #SHOWN} of each kind in place order, and how many in all.
   */
  static List<String> differences(Map<Place, Pane> expected, Map<Place, Pane> actual) {
    List<String> missing = new ArrayList<>();
    List<String> extra = new ArrayList<>();
    List<String> other = new ArrayList<>();
    expected.forEach(
        (place, pane) -> {
          Pane got = actual.get(place);
          if (got == null) {
            missing.add(place + " " + pane);
          } else if (!got.equals(pane)) {
            other.add(place + " " + got + ", the reference " + pane);
          }
        });
    actual.forEach(
        (place, pane) -> {
          if (!expected.containsKey(place)) {
            extra.add(place + " " + pane);
          }
        });
    List<String> differences = new ArrayList<>();
    shown("missing", missing, differences);
    shown("not in the reference", extra, differences);
    shown("another pane", other, differences);
    return differences;
  }

  private static void shown(String kind, List<String> found, List<String> into) {
    if (!found.isEmpty()) {
      into.add(
          kind
              + " ("
              + found.size()
              + "): "
              + String.join("; ", found.subList(0, Math.min(SHOWN, found.size()))));
    }
  }
}
