package io.github.lowwater.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DisorderRecorderTest {

  private final ManualClock clock = new ManualClock();
  private final DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();

  @Test
  void anEventBehindItsSourcesFrontierIsRecordedWithItsLagAndInOrderEventsWithZero() {
    SourceDisorder p0 = recorder.source("p0");
    recorder.record(p0, 10_000); // first: lag 0
    recorder.record(p0, 10_000); // at the frontier: lag 0
    recorder.record(p0, 9_900); // 100 behind
    recorder.record(p0, 12_000); // raises the frontier: lag 0
    recorder.record(p0, 11_800); // 200 behind 12_000

    Distribution lag = recorder.snapshot().lagMillis("p0");
    assertThat(lag.count()).isEqualTo(5);
    assertThat(lag.countAbove(0)).isEqualTo(2);
    assertThat(lag.countAbove(100)).isEqualTo(1);
    assertThat(lag.countAbove(199)).isEqualTo(1);
    assertThat(lag.countAbove(200)).isZero();
    assertThat(lag.max()).isEqualTo(200);
  }

  @Test
  void eachSourceHasItsOwnFrontier() {
    SourceDisorder p0 = recorder.source("p0");
    SourceDisorder p1 = recorder.source("p1");
    recorder.record(p0, 50_000);
    recorder.record(p1, 1_000); // far behind p0, but p1's first event
    recorder.record(p1, 900);

    DisorderSnapshot s = recorder.snapshot();
    assertThat(s.lagMillis("p1").max()).isEqualTo(100);
    assertThat(s.lagMillis("p0").max()).isZero();
    assertThat(s.lagMillis().count()).isEqualTo(3);
    assertThat(s.lagMillis().max()).isEqualTo(100);
    assertThat(s.sources()).containsExactly("p0", "p1");
    assertThat(recorder.sources()).isEqualTo(2);
  }

  @Test
  void theGapsBetweenASourcesRecordsAreMeasuredOnTheMonotonicClock() {
    SourceDisorder p0 = recorder.source("p0");
    SourceDisorder p1 = recorder.source("p1");
    recorder.record(p0, 1); // first: no gap
    clock.advance(Duration.ofNanos(150));
    recorder.record(p1, 1); // p1's first: no gap
    recorder.record(p0, 2); // 150 ns after p0's previous
    recorder.record(p0, 3); // same reading: 0
    clock.advance(Duration.ofNanos(100));
    recorder.record(p1, 2); // 100 ns after p1's first

    DisorderSnapshot s = recorder.snapshot();
    assertThat(s.gapNanos("p0").count()).isEqualTo(2);
    assertThat(s.gapNanos("p0").max()).isEqualTo(150);
    assertThat(s.gapNanos("p0").countAbove(0)).isEqualTo(1);
    assertThat(s.gapNanos("p1").count()).isEqualTo(1);
    assertThat(s.gapNanos("p1").max()).isEqualTo(100);
    assertThat(s.gapNanos().count()).isEqualTo(3);
    assertThat(s.observedNanos()).isEqualTo(250);
    assertThat(s)
        .hasToString(
            "DisorderSnapshot{sources=2, events=5, observedNanos=250, lagMillis=Distribution{"
                + "count=5, p50=0, p99=0, p99.9=0, max=0}}");
  }

  @Test
  void aReadingThatGoesBackwardsRecordsAZeroGapAndKeepsTheLaterReading() {
    SourceDisorder p0 = recorder.source("p0");
    recorder.record(p0, 1, 1_000);
    recorder.record(p0, 2, 400); // backwards: gap 0
    recorder.record(p0, 3, 1_100); // 100 after 1_000, not 700 after 400

    Distribution gaps = recorder.snapshot().gapNanos("p0");
    assertThat(gaps.count()).isEqualTo(2);
    assertThat(gaps.countAbove(0)).isEqualTo(1);
    assertThat(gaps.max()).isEqualTo(100);
    assertThat(recorder.snapshot().observedNanos()).isEqualTo(100);
  }

  @Test
  void aLateEventIsRecordedWithHowFarBehindTheWatermarkItWas() {
    SourceDisorder p0 = recorder.source("p0");
    recorder.recordLate(p0, 1_000, 1_200);
    recorder.recordLate(p0, 5_000, 4_000); // late because its window closed, not behind: 0

    Distribution behind = recorder.snapshot().lateBehindMillis("p0");
    assertThat(behind.count()).isEqualTo(2);
    assertThat(behind.max()).isEqualTo(200);
    assertThat(behind.countAbove(0)).isEqualTo(1);
    assertThat(recorder.snapshot().lateBehindMillis().count()).isEqualTo(2);
    assertThat(recorder.snapshot().lagMillis().count()).isZero(); // recordLate is not an event
  }

  @Test
  void lagsAndGapsBeyondTheMaximumAreRecordedAsTheMaximum() {
    DisorderRecorder small =
        DisorderRecorder.builder()
            .clock(clock)
            .maxLag(Duration.ofMillis(100))
            .maxGap(Duration.ofNanos(200))
            .build();
    SourceDisorder p0 = small.source("p0");
    small.record(p0, Long.MAX_VALUE, 0);
    small.record(p0, Long.MIN_VALUE, 1_000_000); // lag and gap both saturate, then clamp
    small.recordLate(p0, Long.MIN_VALUE, Long.MAX_VALUE);

    DisorderSnapshot s = small.snapshot();
    assertThat(s.lagMillis().max()).isEqualTo(100);
    assertThat(s.gapNanos().max()).isEqualTo(200);
    assertThat(s.lateBehindMillis().max()).isEqualTo(100);
  }

  @Test
  void aSourceIsKeptUnderItsKeyAndOneHandlePerKey() {
    SourceDisorder p0 = recorder.source("p0");
    assertThat(recorder.source("p0")).isSameAs(p0);
    assertThat(p0.key()).isEqualTo("p0");
    assertThat(p0.belongsTo(recorder)).isTrue();
    assertThat(p0).hasToString("SourceDisorder{p0}");
    assertThat(recorder).hasToString("DisorderRecorder{sources=1}");
  }

  @Test
  void aHandleOfAnotherRecorderIsRejectedWithItsKey() {
    SourceDisorder foreign = DisorderRecorder.builder().build().source("p9");
    assertThat(foreign.belongsTo(recorder)).isFalse();
    assertThatThrownBy(() -> recorder.record(foreign, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("source belongs to another recorder: p9");
    assertThatThrownBy(() -> recorder.recordLate(foreign, 1, 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> recorder.record(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> recorder.source(null)).hasMessage("key");
  }

  @Test
  void publishMakesASnapshotReadableFromAnyThread() {
    assertThat(recorder.published().events()).isZero();
    assertThat(recorder.published().sources()).isEmpty();
    recorder.record(recorder.source("p0"), 5);
    assertThat(recorder.published().events()).isZero(); // not published yet
    DisorderSnapshot s = recorder.publish();
    assertThat(recorder.published()).isSameAs(s);
    assertThat(s.events()).isEqualTo(1);
  }

  @Test
  void aSnapshotIsACopyThatLaterRecordsDoNotChange() {
    SourceDisorder p0 = recorder.source("p0");
    recorder.record(p0, 5);
    DisorderSnapshot before = recorder.snapshot();
    recorder.record(p0, 1);
    assertThat(before.lagMillis("p0").count()).isEqualTo(1);
    assertThat(before.lagMillis().count()).isEqualTo(1);
    assertThat(recorder.snapshot().lagMillis().count()).isEqualTo(2);
  }

  @Test
  void anUnknownSourceOfASnapshotIsRejected() {
    DisorderSnapshot s = recorder.snapshot();
    assertThat(s.observedNanos()).isZero();
    assertThatThrownBy(() -> s.lagMillis("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("source was not recorded: nope");
    assertThatThrownBy(() -> s.gapNanos("nope")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.lateBehindMillis("nope"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.lagMillis(null)).hasMessage("source");
  }

  @Test
  void everyBuilderOptionIsCheckedAndSetOnce() {
    assertThatThrownBy(() -> DisorderRecorder.builder().maxLag(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxLag must be > 0: PT0S");
    assertThatThrownBy(() -> DisorderRecorder.builder().maxGap(Duration.ofSeconds(-1)))
        .hasMessage("maxGap must be > 0: PT-1S");
    assertThatThrownBy(() -> DisorderRecorder.builder().clock(clock).clock(clock))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("clock was already set to ");
    assertThatThrownBy(
            () ->
                DisorderRecorder.builder()
                    .maxLag(Duration.ofSeconds(1))
                    .maxLag(Duration.ofSeconds(2)))
        .hasMessage("maxLag was already set to PT1S");
    assertThatThrownBy(
            () ->
                DisorderRecorder.builder()
                    .maxGap(Duration.ofSeconds(1))
                    .maxGap(Duration.ofSeconds(2)))
        .hasMessage("maxGap was already set to PT1S");
  }

  @Test
  void theDefaultsKeepLagsAndGapsOfAWeek() {
    DisorderRecorder r = DisorderRecorder.builder().build();
    SourceDisorder p0 = r.source("p0");
    long week = Duration.ofDays(7).toMillis();
    r.record(p0, week, 0);
    r.record(p0, 0, Duration.ofDays(7).toNanos());
    r.record(p0, 0, Long.MAX_VALUE); // a gap beyond a week: recorded as a week
    DisorderSnapshot s = r.snapshot();
    assertThat((double) s.lagMillis().max())
        .isCloseTo(week, org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(s.lagMillis().countAbove(week / 2)).isEqualTo(2);
    assertThat(s.gapNanos().countAbove(Duration.ofDays(6).toNanos())).isEqualTo(2);
    assertThat(s.gapNanos().countAbove(Duration.ofDays(8).toNanos())).isZero();
  }
}
