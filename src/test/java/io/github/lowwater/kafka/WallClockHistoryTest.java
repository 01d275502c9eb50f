package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link WallClockHistory}: what a checkpoint carries, what a commit lets go, the replay. */
class WallClockHistoryTest {

  @Test
  void aRaiseAtTheSameOffsetReplacesTheLastOneAndALaterOneIsAnotherEntry() {
    WallClockHistory h = new WallClockHistory();
    h.raised(5, 100);
    h.raised(5, 160);
    h.raised(7, 200);
    assertThat(h.encodeFrom(0)).isEqualTo("q5:160,q7:200");
  }

  @Test
  void aCommitLetsGoOfTheRaisesItPassedAndKeepsTheGuardReadingInForceAtIt() {
    WallClockHistory h = new WallClockHistory();
    h.guardRead(1, 1_000);
    h.raised(2, 50);
    h.guardRead(3, 2_000);
    h.raised(6, 60);
    h.guardRead(8, 3_000);
    // Committed at 6: the raise at 6 was before the record at 6, in the checkpoint's w already.
    assertThat(h.encodeFrom(6)).isEqualTo("c3:2000,c8:3000");
    assertThat(h.encodeFrom(8)).isEqualTo("c8:3000");
    assertThat(h.encodeFrom(100)).isEqualTo("c8:3000");
    assertThat(h.size()).isOne();
    assertThat(h.guardWall()).isEqualTo(3_000);
  }

  @Test
  void moreEntriesThanACheckpointCarriesEncodeAsNothing() {
    WallClockHistory h = new WallClockHistory();
    for (int i = 1; i <= WallClockHistory.MAX_ENTRIES; i++) {
      h.raised(i, i);
    }
    assertThat(h.encodeFrom(0).split(",")).hasSize(WallClockHistory.MAX_ENTRIES);
    h.raised(WallClockHistory.MAX_ENTRIES + 1, 0);
    assertThat(h.encodeFrom(0)).isNull();
    assertThat(h.encodeFrom(1).split(",")).hasSize(WallClockHistory.MAX_ENTRIES);
  }

  @Test
  void restoredEntriesAreReplayedInOffsetOrderAndThenNewOnesFollowThem() {
    WallClockHistory h = new WallClockHistory();
    h.restore("c0:1000,q4:70,c4:2000,q9:80");
    assertThat(h.replaying()).isTrue();
    assertThat(h.due(0)).isTrue();
    assertThat(h.dueKind()).isEqualTo(WallClockHistory.GUARD);
    assertThat(h.applyDue()).isEqualTo(1_000);
    assertThat(h.guardWall()).isEqualTo(1_000);
    assertThat(h.due(3)).isFalse();
    assertThat(h.due(4)).isTrue();
    assertThat(h.dueKind()).isEqualTo(WallClockHistory.RAISE);
    assertThat(h.applyDue()).isEqualTo(70);
    assertThat(h.applyDue()).isEqualTo(2_000);
    assertThat(h.guardWall()).isEqualTo(2_000);
    h.raised(9, 90); // this owner's own: not merged into the restored raise at the same offset
    assertThat(h.due(9)).isTrue();
    assertThat(h.applyDue()).isEqualTo(80);
    assertThat(h.replaying()).isFalse();
    assertThat(h.due(100)).isFalse();
    assertThat(h.encodeFrom(5)).isEqualTo("c4:2000,q9:80,q9:90");
  }

  @Test
  void theCheckpointFieldIsCheckedEntryByEntry() {
    assertThat(WallClockHistory.invalid("q1:2,c1:-3")).isNull();
    assertThat(WallClockHistory.invalid("")).isEqualTo("field 'h' is empty");
    assertThat(WallClockHistory.invalid("q1:2,x1:3")).isEqualTo("field 'h' has a malformed entry");
    assertThat(WallClockHistory.invalid("q1:99999999999999999999"))
        .isEqualTo("field 'h' has a malformed entry");
    assertThat(WallClockHistory.invalid("q2:2,q1:3")).as("read in offset order").isNull();
  }

  /**
   * Issue 45, item 1: an owner that turns the guard on re-reads its predecessor's records below a
   * restored raise and records its first reading there. The reading was appended after the raise,
   * and the checkpoint {@code q3:…,c1:…} was refused by the next owner. It is written in its place.
   */
  @Test
  void aReadingTakenBelowARestoredRaiseIsWrittenInOffsetOrder() {
    WallClockHistory h = new WallClockHistory();
    h.restore("q3:60");
    h.guardRead(1, 5_000);
    assertThat(h.due(1)).isFalse();
    assertThat(h.due(3)).isTrue();
    assertThat(h.applyDue()).isEqualTo(60);
    assertThat(h.guardWall()).as("the restored raise is no reading").isEqualTo(5_000);
    h.raised(4, 70);
    String encoded = h.encodeFrom(2);
    assertThat(encoded).isEqualTo("c1:5000,q3:60,q4:70");
    assertThat(WallClockHistory.invalid(encoded)).isNull();
    assertThat(h.encodeFrom(3)).as("the baseline reading stays").isEqualTo("c1:5000,q4:70");
  }

  /**
   * An owner without the guard carries no reading, restored or its own: the next owner with the
   * guard judges the records it re-reads by its own readings, not by one older than them.
   */
  @Test
  void forgettingTheReadingsKeepsTheRaises() {
    WallClockHistory h = new WallClockHistory();
    h.restore("c0:1000,q2:50,c2:2000");
    while (h.replaying()) {
      h.applyDue();
    }
    h.raised(5, 70);
    h.forgetGuardReadings();
    assertThat(h.encodeFrom(1)).isEqualTo("q2:50,q5:70");
  }
}
