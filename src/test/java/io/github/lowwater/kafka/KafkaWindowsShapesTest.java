package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The window shapes of issue 36 through {@link KafkaWindows}: offsets, calendar periods and sliding
 * windows.
 */
class KafkaWindowsShapesTest {

  static final TopicPartition P0 = new TopicPartition("shapes", 0);
  static final long HOUR = 3_600_000L;
  static final long DAY0 = 1_767_225_600_000L; // 2026-01-01T00:00Z, a whole number of hours

  @Test
  void tumblingAndHoppingWindowsTakeAnOffset() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofHours(1), Aggregators.sumLong())
            .offset(Duration.ofMinutes(30))
            .allowedLateness(Duration.ZERO)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    poll(w, record(P0, 0, DAY0 + 10 * HOUR + HOUR / 4, "k"), record(P0, 1, DAY0 + 12 * HOUR, "k"));
    assertThat(w.pollFinalized())
        .extracting(WindowResult::start, WindowResult::end, WindowResult::value)
        .containsExactly(tuple(DAY0 + 9 * HOUR + HOUR / 2, DAY0 + 10 * HOUR + HOUR / 2, 1L));

    MockConsumer<String, String> other = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> hopping =
        KafkaWindows.builder(Duration.ofHours(2), Aggregators.sumLong())
            .hopping(Duration.ofHours(1))
            .offset(Duration.ofMinutes(90)) // modulo the advance: on the half hour
            .allowedLateness(Duration.ZERO)
            .consumer(other)
            .build();
    hopping.rebalanceListener().onPartitionsAssigned(List.of(P0));
    poll(
        hopping,
        record(P0, 0, DAY0 + 10 * HOUR + HOUR / 4, "k"),
        record(P0, 1, DAY0 + 14 * HOUR, "k"));
    assertThat(hopping.pollFinalized())
        .extracting(WindowResult::start, WindowResult::end)
        .containsExactly(
            tuple(DAY0 + 8 * HOUR + HOUR / 2, DAY0 + 10 * HOUR + HOUR / 2),
            tuple(DAY0 + 9 * HOUR + HOUR / 2, DAY0 + 11 * HOUR + HOUR / 2));
  }

  @Test
  void calendarWindowsComeFromTheirPeriodAndRefuseWhatTheyCannotBe() {
    CalendarPeriod weeks = CalendarPeriod.weeks(ZoneId.of("America/New_York"), DayOfWeek.SUNDAY);
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(weeks, Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    long thursday = CalendarPeriodTestAccess.at("2026-12-03T10:00-05:00[America/New_York]");
    long nextWeek = CalendarPeriodTestAccess.at("2026-12-06T00:00-05:00[America/New_York]");
    poll(w, record(P0, 0, thursday, "k"), record(P0, 1, nextWeek, "k"));
    assertThat(w.pollFinalized())
        .extracting(WindowResult::start, WindowResult::end)
        .containsExactly(tuple(weeks.startOf(thursday), nextWeek));

    assertThatThrownBy(
            () -> KafkaWindows.builder(weeks, Aggregators.sumLong()).hopping(Duration.ofDays(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("calendar windows, weeks in America/New_York from SUNDAY");
    assertThatThrownBy(
            () -> KafkaWindows.builder(weeks, Aggregators.sumLong()).offset(Duration.ofHours(6)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("offset is for windows of a size");
    assertThatThrownBy(
            () ->
                KafkaWindows.sessions(Duration.ofMinutes(1), Aggregators.sumLong())
                    .offset(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("session windows of gap PT1M");
  }

  @Test
  void calendarWindowsInTheMergedScopeCloseOnTheSlowestPartition() {
    TopicPartition p1 = new TopicPartition("shapes", 1);
    CalendarPeriod months = CalendarPeriod.months(ZoneId.of("Asia/Kolkata"));
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, p1);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(months, Aggregators.sumLong())
            .resultScope(ResultScope.MERGED)
            .allowedLateness(Duration.ZERO)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0, p1));
    long january = CalendarPeriodTestAccess.at("2026-01-31T23:00+05:30[Asia/Kolkata]");
    long february = CalendarPeriodTestAccess.at("2026-02-01T00:00+05:30[Asia/Kolkata]");
    poll(w, record(P0, 0, january, "k"), record(P0, 1, february, "k"), record(p1, 0, january, "k"));
    assertThat(w.pollFinalized()).as("p1 holds January open").isEmpty();
    poll(w, record(p1, 1, february, "k"));
    assertThat(w.pollFinalized())
        .extracting(WindowResult::start, WindowResult::end, WindowResult::value)
        .containsExactly(tuple(months.startOf(january), february, 2L));
  }

  /** {@code CalendarPeriodTest.at} lives in another package. */
  @Test
  void slidingWindowsHoldTheCommitUntilTheWindowStartingAfterARecordIsReturned() {
    long minute = 60_000L;
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.sliding(Duration.ofMinutes(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    poll(
        w,
        record(P0, 0, DAY0, "k"),
        record(P0, 1, DAY0 + 5 * minute, "k"),
        record(P0, 2, DAY0 + 10 * minute + 1, "x"));
    assertThat(w.committableOffsets().get(P0).offset()).as("nothing returned yet").isZero();
    assertThat(w.pollFinalized())
        .extracting(WindowResult::key, WindowResult::start, WindowResult::end, WindowResult::value)
        .containsExactly(
            tuple("k", DAY0 - 10 * minute, DAY0 + 1, 1L),
            tuple("k", DAY0 - 5 * minute, DAY0 + 5 * minute + 1, 2L));
    // The window starting after the first record, [DAY0 + 1, DAY0 + 10 min + 2), is not closed:
    // the first record is still needed to make it.
    assertThat(w.committableOffsets().get(P0).offset()).isZero();
    poll(w, record(P0, 3, DAY0 + 10 * minute + 2, "x"));
    assertThat(w.pollFinalized())
        .extracting(WindowResult::key, WindowResult::start, WindowResult::value)
        .containsExactly(tuple("k", DAY0 + 1, 1L), tuple("x", DAY0 + 1, 1L));
    // A record is held until the window starting after it is returned, that end rounded up to
    // the grain (10 min + 2 ms) / 16 = 37,500 ms: the first to DAY0 + 637,500, the second (k at
    // 5 min) to DAY0 + 937,500, x's first to DAY0 + 1,237,500.
    assertThat(w.committableOffsets().get(P0).offset()).isZero();
    long[][] steps = {{637_499, 0}, {637_500, 1}, {937_499, 1}, {937_500, 2}};
    assertCommitSteps(w, 4, steps);
  }

  @Test
  void slidingWindowsWithAGracePeriodGiveLateRowsAndHoldTheCommitUntilTheirWindowsRetire() {
    long minute = 60_000L;
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.sliding(Duration.ofMinutes(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .grace(Duration.ofMinutes(5))
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    poll(
        w,
        record(P0, 0, DAY0, "k"),
        record(P0, 1, DAY0 + 5 * minute, "k"),
        record(P0, 2, DAY0 + 12 * minute, "x")); // the watermark: 12 min
    assertThat(w.pollFinalized())
        .extracting(
            WindowResult::start, WindowResult::end, WindowResult::timing, WindowResult::isFinal)
        .containsExactly(
            tuple(DAY0 - 10 * minute, DAY0 + 1, Timing.ON_TIME, false), // closed at 5 min
            tuple(DAY0 - 5 * minute, DAY0 + 5 * minute + 1, Timing.ON_TIME, true),
            tuple(DAY0 + 1, DAY0 + 10 * minute + 2, Timing.ON_TIME, false));
    // 8 min: its own window ended by the watermark, 8 min + 1 + 5 min does not: a late update.
    poll(w, record(P0, 3, DAY0 + 8 * minute, "k"));
    assertThat(w.pollFinalized())
        .extracting(
            WindowResult::start,
            WindowResult::end,
            WindowResult::timing,
            WindowResult::index,
            WindowResult::value)
        .containsExactly(
            tuple(DAY0 - 2 * minute, DAY0 + 8 * minute + 1, Timing.LATE, 0, 3L), // made by it
            tuple(DAY0 + 1, DAY0 + 10 * minute + 2, Timing.LATE, 1, 2L)); // joined by it
    // A record is held until the windows ending by t + d + 2, rounded up to the grain of 37,500
    // ms, retire, a grace period after they end: the first to 637,500 + 5 min, the second (5 min)
    // to 937,500 + 5 min.
    long[][] steps = {{937_499, 0}, {937_500, 1}, {1_237_499, 1}, {1_237_500, 2}};
    assertCommitSteps(w, 4, steps);
  }

  @Test
  void slidingWindowsRefuseWhatTheyCannotBeNamingThem() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    assertThatThrownBy(
            () ->
                KafkaWindows.sliding(Duration.ofMinutes(10), Aggregators.count())
                    .offset(Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "offset is for windows of a size: these are sliding windows of time difference PT10M");
    assertThatThrownBy(
            () ->
                KafkaWindows.sliding(Duration.ofMinutes(10), Aggregators.count())
                    .hopping(Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("hopping is for windows of a size");
    assertThatThrownBy(
            () ->
                KafkaWindows.sliding(Duration.ofMinutes(10), Aggregators.count())
                    .resultScope(ResultScope.CO_PARTITIONED)
                    .grace(Duration.ofMinutes(1))
                    .consumer(consumer)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("resultScope(CO_PARTITIONED) is for tumbling, hopping and sliding")
        .hasMessageContaining("a grace period");
    assertThatThrownBy(() -> KafkaWindows.sliding(Duration.ofMillis(-1), Aggregators.count()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeDifference");
  }

  static final class CalendarPeriodTestAccess {
    static long at(String zonedDateTime) {
      return java.time.ZonedDateTime.parse(zonedDateTime).toInstant().toEpochMilli();
    }
  }

  /**
   * Raises the watermark to {@code DAY0 + step[0]} with a record of key y at each step, from offset
   * {@code offset}, and checks that the committable offset is then {@code step[1]}.
   */
  private static void assertCommitSteps(
      KafkaWindows<String, Long, Long> w, int offset, long[][] steps) {
    for (long[] step : steps) {
      poll(w, record(P0, offset++, DAY0 + step[0], "y"));
      w.pollFinalized();
      assertThat(w.committableOffsets().get(P0).offset())
          .as("watermark DAY0 + %d", step[0])
          .isEqualTo(step[1]);
    }
  }

  /** Hands the windows one poll of records, each counting 1 under its key. */
  @SafeVarargs
  private static void poll(
      KafkaWindows<String, Long, Long> windows, ConsumerRecord<String, String>... records) {
    List<ConsumerRecord<String, String>> poll = new ArrayList<>();
    for (ConsumerRecord<String, String> r : records) {
      poll.add(r); // not List.of(records): the array would leave the method (lint: varargs)
    }
    windows.onPoll(KafkaWindowsTest.recordsOf(poll), r -> r.key(), r -> 1L);
  }

  private static ConsumerRecord<String, String> record(
      TopicPartition partition, long offset, long eventTime, String key) {
    return JoinHandOverModelTest.Trace.record(partition, offset, eventTime, key, "v");
  }
}
