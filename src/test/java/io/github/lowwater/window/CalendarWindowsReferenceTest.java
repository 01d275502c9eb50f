package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Calendar windows against a naive reference built on {@code java.time} ({@code
 * ZonedDateTime.truncatedTo(DAYS)}, plus days, weeks or months), over random traces in random zones
 * of {@code ZoneId.getAvailableZoneIds()}. Two differences, mapped to rule 75: where a date's
 * midnight falls in an overlap, {@code truncatedTo} keeps the instant's own offset and may give the
 * later of the two midnights, while a calendar window starts at the first instant of its date, the
 * earlier one; and where the clocks go back across midnight, an instant can read a date whose next
 * period has begun already, and belongs to that period.
 */
class CalendarWindowsReferenceTest {

  static final List<String> ZONES = new ArrayList<>(new TreeSet<>(ZoneId.getAvailableZoneIds()));

  /** The reference: the period of {@code t} as {@code java.time} arithmetic gives it. */
  static long[] reference(CalendarPeriod p, long t) {
    ZonedDateTime z = Instant.ofEpochMilli(t).atZone(p.zone());
    ZonedDateTime start;
    ZonedDateTime end;
    switch (p.unit()) {
      case DAYS -> {
        start = z.truncatedTo(ChronoUnit.DAYS);
        end = start.plusDays(1).truncatedTo(ChronoUnit.DAYS);
      }
      case WEEKS -> {
        int back = Math.floorMod(z.getDayOfWeek().getValue() - p.firstDayOfWeek().getValue(), 7);
        start = z.minusDays(back).truncatedTo(ChronoUnit.DAYS);
        end = start.plusDays(7).truncatedTo(ChronoUnit.DAYS);
      }
      default -> {
        start = z.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS);
        end = start.plusMonths(1).truncatedTo(ChronoUnit.DAYS);
      }
    }
    long[] period = {firstInstantOfItsDate(start), firstInstantOfItsDate(end)};
    while (period[1] <= t && period[1] != Long.MAX_VALUE) {
      // Rule 75's other mapped difference: the clocks went back across midnight, so t reads a
      // date whose next period has begun already; t belongs to the period that began last.
      reentered++;
      ZonedDateTime next = Instant.ofEpochMilli(period[1]).atZone(p.zone());
      ZonedDateTime after =
          switch (p.unit()) {
            case DAYS -> next.plusDays(1);
            case WEEKS -> next.plusDays(7);
            default -> next.plusMonths(1);
          };
      period = new long[] {period[1], firstInstantOfItsDate(after.truncatedTo(ChronoUnit.DAYS))};
    }
    return period;
  }

  /** Counts the instants whose date had been left already (rule 75). */
  static int reentered;

  /** Counts the overlap-at-midnight differences the reference has: rule 75's first instant. */
  static int overlaps;

  /**
   * Maps the one documented difference: a midnight in an overlap is the earlier of the two instants
   * with that local time.
   */
  static long firstInstantOfItsDate(ZonedDateTime midnight) {
    LocalDateTime local = midnight.toLocalDateTime();
    var offsets = midnight.getZone().getRules().getValidOffsets(local);
    if (offsets.size() == 2 && local.toLocalTime().equals(java.time.LocalTime.MIDNIGHT)) {
      ZonedDateTime earlier = midnight.withEarlierOffsetAtOverlap();
      if (!earlier.equals(midnight)) {
        overlaps++;
        return earlier.toInstant().toEpochMilli();
      }
    }
    return midnight.toInstant().toEpochMilli();
  }

  static CalendarPeriod randomPeriod(Random random) {
    ZoneId zone = ZoneId.of(ZONES.get(random.nextInt(ZONES.size())));
    return switch (random.nextInt(3)) {
      case 0 -> CalendarPeriod.days(zone);
      case 1 -> CalendarPeriod.weeks(zone, DayOfWeek.of(1 + random.nextInt(7)));
      default -> CalendarPeriod.months(zone);
    };
  }

  @Test
  void thePeriodsOfRandomInstantsInRandomZonesAreTheReferences() {
    Random random = new Random(75);
    int compared = 0;
    for (int trace = 0; trace < 2_000; trace++) {
      CalendarPeriod period = randomPeriod(random);
      CalendarAssigner cached = new CalendarAssigner(period);
      // Around a random instant of 1850 to 2100, where zones changed their rules most.
      long base = -3_800_000_000_000L + (long) (random.nextDouble() * 7_900_000_000_000L);
      for (int i = 0; i < 50; i++) {
        long t = base + (long) (random.nextGaussian() * 40 * 86_400_000L);
        long[] ref = reference(period, t);
        assertThat(new long[] {period.startOf(t), period.endOf(t)})
            .as("%s at %s", period, Instant.ofEpochMilli(t))
            .containsExactly(ref);
        assertThat(new long[] {cached.startOf(t), cached.endOf(t)})
            .as("cached, %s at %s", period, Instant.ofEpochMilli(t))
            .containsExactly(ref);
        compared++;
      }
    }
    System.out.printf(
        "calendar reference: %,d instants in %,d zones compared; %d midnights in an overlap, %d"
            + " instants of a date left already%n",
        compared, ZONES.size(), overlaps, reentered);
    assertThat(compared).isEqualTo(100_000);
  }

  @Test
  void calendarWindowsGiveTheReferencesRowsAndLateEventsOnRandomTraces() {
    Random random = new Random(76);
    long rows = 0;
    long lateTotal = 0;
    for (int trace = 0; trace < 1_000; trace++) {
      CalendarPeriod period = randomPeriod(random);
      long lateness = random.nextInt(3) * 3_600_000L * random.nextInt(30);
      ManualClock clock = new ManualClock();
      List<Long> late = new ArrayList<>();
      TumblingWindows<String, Long, Long> windows =
          TumblingWindows.builder(period, Aggregators.count())
              .allowedLateness(Duration.ofMillis(lateness))
              .clock(clock)
              .lateEventHandler((source, t, end, watermark, key, value) -> late.add(t))
              .build();
      Map<List<Object>, Long> expected = new TreeMap<>(CalendarWindowsReferenceTest::compare);
      List<Long> expectedLate = new ArrayList<>();
      long watermark = Long.MIN_VALUE;
      long time = -300_000_000_000L + (long) (random.nextDouble() * 2_600_000_000_000L);
      for (int i = 0; i < 200; i++) {
        time += (long) (random.nextDouble() * 6 * 3_600_000L);
        long t =
            random.nextInt(4) == 0 ? time - (long) (random.nextDouble() * 3 * 86_400_000L) : time;
        String key = "k" + random.nextInt(3);
        long[] ref = reference(period, t);
        if (watermark != Long.MIN_VALUE && ref[1] <= watermark) {
          expectedLate.add(t);
        } else {
          expected.merge(List.of(ref[0], ref[1], key), 1L, Long::sum);
        }
        watermark = Math.max(watermark, t - lateness);
        windows.add("p", t, key, 1L);
      }
      windows.finish();
      Map<List<Object>, Long> actual = new TreeMap<>(CalendarWindowsReferenceTest::compare);
      long lastEnd = Long.MIN_VALUE;
      for (WindowResult<String, Long> r : windows.pollFinalized()) {
        assertThat(r.end()).as("ascending ends").isGreaterThanOrEqualTo(lastEnd);
        lastEnd = r.end();
        actual.put(List.of(r.start(), r.end(), r.key()), r.value());
      }
      assertThat(actual).as("trace %d, %s", trace, period).isEqualTo(expected);
      assertThat(late).as("trace %d, %s", trace, period).isEqualTo(expectedLate);
      rows += actual.size();
      lateTotal += late.size();
    }
    System.out.printf("calendar windows: %,d rows and %,d late events compared%n", rows, lateTotal);
    assertThat(lateTotal).isGreaterThan(1_000);
  }

  @SuppressWarnings("unchecked")
  static int compare(List<Object> a, List<Object> b) {
    for (int i = 0; i < a.size(); i++) {
      int c = ((Comparable<Object>) a.get(i)).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}
