package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link SourceCounts}: late and future counts per source, each map without the zero counts. */
class SourceCountsTest {

  @Test
  void lateAndFutureAreCountedApartAndASourceWithoutOneIsAbsentFromItsMap() {
    SourceCounts counts = new SourceCounts();
    counts.late("p0");
    counts.late("p0");
    counts.future("p1");
    counts.late("p1");
    assertThat(counts.lateBySource()).isEqualTo(Map.of("p0", 2L, "p1", 1L));
    assertThat(counts.futureBySource()).isEqualTo(Map.of("p1", 1L));
  }

  @Test
  void theMapsAreNewCopies() {
    SourceCounts counts = new SourceCounts();
    counts.late("p0");
    Map<Object, Long> first = counts.lateBySource();
    counts.late("p0");
    assertThat(first).isEqualTo(Map.of("p0", 1L));
    assertThat(counts.lateBySource()).isEqualTo(Map.of("p0", 2L));
  }
}
