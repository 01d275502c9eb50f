package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link WindowCounters}: each event of a window's life moves exactly its counters. */
class WindowCountersTest {

  @Test
  void eachCallMovesItsCountersAndTheSnapshotCarriesTheTrackersReadings() {
    WindowCounters c = new WindowCounters();
    c.accepted();
    c.accepted();
    c.late();
    c.partiallyLate();
    c.windowOpened();
    c.windowOpened();
    c.entryOpened();
    c.entryOpened();
    c.entryOpened();
    c.windowClosed(2);
    c.windowFinalized();
    assertThat(c.events()).isEqualTo(3);
    assertThat(c.openWindows()).isEqualTo(1);
    assertThat(c.snapshot(7, 1_000))
        .isEqualTo(new WindowStats(2, 1, 7, 1, 1, 1, 1_000, 1, 0, 0, 1)); // retired when finalized
  }

  @Test
  void withPanesAWindowRetiresApartFromItsFinalizationAndTheRowsAreCounted() {
    WindowCounters c = new WindowCounters();
    c.retireApart();
    c.windowFinalized();
    c.earlyRow();
    c.earlyRow();
    c.lateUpdate();
    assertThat(c.snapshot(0, 5)).isEqualTo(new WindowStats(0, 0, 0, 0, 0, 1, 5, 0, 2, 1, 0));
    c.windowRetired();
    assertThat(c.snapshot(0, 5).retiredWindows()).isEqualTo(1);
  }

  @Test
  void aNewSetOfCountersIsAllZero() {
    assertThat(new WindowCounters().snapshot(0, Long.MIN_VALUE))
        .isEqualTo(new WindowStats(0, 0, 0, 0, 0, 0, Long.MIN_VALUE));
  }
}
